@_spi(Transports) import HTTPCore
import NIOCore

extension HTTPBody {
    /// This body as SwiftNIO `ByteBuffer`s, for a server framework's response writer
    /// (Hummingbird's `ResponseBodyWriter`, Vapor's `AsyncBodyStreamWriter`): a proxy's way to
    /// pass an upstream body on.
    ///
    /// A body that came from ``AsyncHTTPClientTransport`` yields the buffers AHC delivered, as
    /// they are: no byte is copied between the upstream's connection and the framework, even
    /// when the body was observed on the way (observation reads each buffer in place). Any
    /// other chunk is copied once into a new buffer, as `ByteBuffer(bytes:)` would.
    ///
    /// ```swift
    /// let (head, body) = try await client.send(HTTPRequest(url: upstream), body: nil)
    /// return Response(status: .init(code: head.statusCode), headers: fields) {
    ///     ResponseBody { writer in
    ///         for try await buffer in body.byteBuffers { try await writer.write(buffer) }
    ///         try await writer.finish(nil)
    ///     }
    /// }
    /// ```
    ///
    /// It reads the body as iterating it does: one pass, and a second pass of a single-pass
    /// body throws ``/HTTPCore/HTTPError/Code/bodyAlreadyRead``.
    public var byteBuffers: ByteBuffers { ByteBuffers(body: self) }

    /// A body's chunks as SwiftNIO `ByteBuffer`s, from `HTTPBody.byteBuffers`: AHC's own buffers, as they are.
    public struct ByteBuffers: AsyncSequence, Sendable {
        /// A chunk of the body.
        public typealias Element = ByteBuffer

        private let body: HTTPBody

        fileprivate init(body: HTTPBody) {
            self.body = body
        }

        /// Reads one pass of the body, buffer by buffer.
        public struct AsyncIterator: AsyncIteratorProtocol {
            private var pieces: HTTPBody.Iterator

            fileprivate init(_ pieces: HTTPBody.Iterator) {
                self.pieces = pieces
            }

            /// The next buffer, or `nil` once the body has ended: AHC's own buffer, or a copy of
            /// a chunk from elsewhere.
            ///
            /// - Throws: what iterating the body throws.
            public mutating func next() async throws -> ByteBuffer? {
                guard let piece = try await pieces.nextPiece() else { return nil }
                if case .transport(let chunk as ByteBufferChunk) = piece {
                    HTTPBodyCopies.recordHandOver(byteCount: chunk.count)
                    return chunk.buffer
                }
                HTTPBodyCopies.recordCopy(byteCount: piece.count)
                return piece.withUnsafeBytes { ByteBuffer(bytes: $0) }
            }
        }

        /// Starts the pass over the body.
        public func makeAsyncIterator() -> AsyncIterator {
            AsyncIterator(body.makeAsyncIterator())
        }
    }
}
