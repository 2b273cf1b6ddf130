import HTTPCore

extension LoopbackBodyPattern {
    /// The pattern's first `byteCount` bytes as an async sequence of chunks, for an upload body
    /// that is generated as it is sent: `HTTPBody(length: .known(n)) { LoopbackBodyPattern.Chunks(byteCount: n) }`.
    ///
    /// Each chunk is made when it is asked for, so only one is in memory at a time.
    public struct Chunks: AsyncSequence, Sendable {
        /// A chunk of the pattern.
        public typealias Element = HTTPBody.ByteChunk

        /// How many bytes the sequence gives in all.
        public let byteCount: Int64
        /// The size of every chunk but the last (at least 1).
        public let chunkSize: Int

        /// `byteCount` bytes in chunks of `chunkSize` (64 KiB unless given).
        public init(byteCount: Int64, chunkSize: Int = 64 * 1024) {
            self.byteCount = Swift.max(0, byteCount)
            self.chunkSize = Swift.max(1, chunkSize)
        }

        /// Gives the chunks in order.
        public struct AsyncIterator: AsyncIteratorProtocol {
            fileprivate let sequence: Chunks
            fileprivate var offset: Int64 = 0

            /// The next chunk, or `nil` after the last.
            public mutating func next() async -> HTTPBody.ByteChunk? {
                guard offset < sequence.byteCount else { return nil }
                let count = Int(Swift.min(Int64(sequence.chunkSize), sequence.byteCount - offset))
                defer { offset += Int64(count) }
                return LoopbackBodyPattern.chunk(at: offset, count: count)
            }
        }

        /// An iterator from the first byte.
        public func makeAsyncIterator() -> AsyncIterator {
            AsyncIterator(sequence: self)
        }
    }
}
