import HTTPCore

/// A recorded body's pieces as an async sequence of chunks: each after its recorded delay
/// when timed, then the recorded failure, if the body failed.
struct ReplayedChunks: AsyncSequence, Sendable {
    typealias Element = HTTPBody.ByteChunk

    let pieces: [RecordedExchange.Piece]
    let isTimed: Bool
    let failure: HTTPError?

    struct AsyncIterator: AsyncIteratorProtocol {
        let chunks: ReplayedChunks
        var next = 0

        mutating func next() async throws -> HTTPBody.ByteChunk? {
            guard next < chunks.pieces.count else {
                if let failure = chunks.failure, next == chunks.pieces.count {
                    next += 1
                    throw failure
                }
                return nil
            }
            let piece = chunks.pieces[next]
            next += 1
            if chunks.isTimed, piece.delay > 0 { try await Task.sleep(for: .seconds(piece.delay)) }
            return piece.bytes[...]
        }
    }

    func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(chunks: self)
    }
}
