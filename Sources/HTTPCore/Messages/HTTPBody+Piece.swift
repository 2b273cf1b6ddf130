extension HTTPBody {
    /// One piece of a body as its producer made it: bytes of HTTPCore's own, or a transport's
    /// chunk in the transport's storage (see ``HTTPBodyTransportChunk``).
    ///
    /// The layers between a transport and the reader (observation, the client's reader, the
    /// middlewares that watch a body) pass pieces on as they are, so a transport's chunk
    /// reaches a consumer that reads pieces (``HTTPBody/Iterator/nextPiece()``) without a copy.
    @_spi(Transports) public enum Piece: Sendable {
        /// Bytes of HTTPCore's own.
        case bytes(ByteChunk)
        /// A transport's chunk, in its storage.
        case transport(any HTTPBodyTransportChunk)

        /// How many bytes the piece holds.
        public var count: Int {
            switch self {
            case .bytes(let bytes): bytes.count
            case .transport(let chunk): chunk.count
            }
        }

        /// Calls `body` with the piece's bytes in place, without copying them; the pointer is
        /// valid only during the call.
        ///
        /// - Parameter body: reads the bytes.
        /// - Returns: what `body` returns.
        /// - Throws: what `body` throws.
        public func withUnsafeBytes<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
            switch self {
            case .bytes(let bytes): try bytes.withUnsafeBytes(body)
            case .transport(let chunk): try chunk.withUnsafeBytes(body)
            }
        }

        /// The piece's bytes as a chunk: HTTPCore's own as they are, a transport's copied once
        /// (and counted in ``HTTPBodyCopies``).
        public var bytes: ByteChunk {
            switch self {
            case .bytes(let bytes):
                return bytes
            case .transport(let chunk):
                let copy = chunk.withUnsafeBytes { ByteChunk($0) }
                HTTPBodyCopies.recordCopy(byteCount: copy.count)
                return copy
            }
        }
    }
}

extension HTTPBody.Writer {
    /// Appends a transport's chunk in its own storage, without suspending, as
    /// ``yield(_:whenDrained:)`` appends bytes: the reader gets the chunk itself through
    /// ``HTTPBody/Iterator/nextPiece()``, or a copy of its bytes through the body's sequence.
    ///
    /// - Parameters:
    ///   - transportChunk: the chunk; it must not change once yielded.
    ///   - whenDrained: runs once, on the reader's task, when the answer is
    ///     ``YieldResult/full`` and the reader has taken half of the buffered bytes, or stopped.
    /// - Returns: whether to produce on, pause, or stop (the chunk was then dropped).
    @_spi(Transports) public func yield(
        transportChunk: some HTTPBodyTransportChunk, whenDrained: @escaping @Sendable () -> Void
    ) -> YieldResult {
        yield(piece: .transport(transportChunk), whenDrained: whenDrained)
    }
}
