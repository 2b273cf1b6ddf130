@_spi(Transports) import HTTPCore
import NIOCore

/// A response body part as AHC delivered it, handed to the body in its own storage: the body's
/// layers read it in place, and ``/HTTPCore/HTTPBody/byteBuffers`` gives the buffer back as it
/// is, so a proxy writes it to its server framework without a copy.
struct ByteBufferChunk: HTTPBodyTransportChunk {
    /// The part; its readable bytes are the chunk.
    let buffer: ByteBuffer

    init(_ buffer: ByteBuffer) {
        self.buffer = buffer
    }

    var count: Int { buffer.readableBytes }

    func withUnsafeBytes<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
        try buffer.withUnsafeReadableBytes(body)
    }
}
