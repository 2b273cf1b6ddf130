/// Body bytes that a transport hands over in its own storage (a SwiftNIO `ByteBuffer`), so
/// that a consumer able to write that storage on, a proxy writing to its server framework,
/// gets the transport's chunk itself instead of a copy.
///
/// Implement it in a transport whose chunks are not `ArraySlice<UInt8>`, and yield each chunk
/// with ``HTTPBody/Writer/yield(transportChunk:whenDrained:)``. The chunk then goes through
/// every layer of the body as it is, observation included: a tap reads its bytes in place
/// (``withUnsafeBytes(_:)``) and never alters or keeps it. A reader of the body's public
/// sequence gets the bytes copied once into a ``HTTPBody/ByteChunk``; a consumer that knows the
/// transport reads ``HTTPBody/Iterator/nextPiece()`` and casts the chunk to its own type.
///
/// ```swift
/// struct BufferChunk: HTTPBodyTransportChunk {
///     let buffer: ByteBuffer
///     var count: Int { buffer.readableBytes }
///     func withUnsafeBytes<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
///         try buffer.withUnsafeReadableBytes(body)
///     }
/// }
/// ```
///
/// A chunk is read from any task and must not change once handed over.
@_spi(Transports) public protocol HTTPBodyTransportChunk: Sendable {
    /// How many bytes the chunk holds.
    var count: Int { get }

    /// Calls `body` with the chunk's bytes in place, without copying them; the pointer is
    /// valid only during the call.
    ///
    /// - Parameter body: reads the bytes.
    /// - Returns: what `body` returns.
    /// - Throws: what `body` throws.
    func withUnsafeBytes<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result
}
