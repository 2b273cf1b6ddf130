import HTTPCoreConcurrency

extension HTTPBody {
    /// What ended the reading of a body.
    public enum ReadEnd: Sendable {
        /// The reader read it to its end.
        case finished
        /// Reading it failed (the connection broke, the deadline passed).
        case failed(any Error)
        /// The reader went away before its end: the exchange stopped it, or the body was
        /// dropped unread.
        case stopped
    }

    /// This body, its bytes unchanged, with each chunk read told to `chunk` and the end of
    /// the reading told to `end`, once: for a middleware that measures what went through (a
    /// span that ends when the body does, with its real size), without reading the body
    /// itself. Stopping the returned body stops this one.
    public func observingReads(
        chunk: @escaping @Sendable (ByteChunk) -> Void = { _ in },
        end: @escaping @Sendable (ReadEnd) -> Void
    ) -> HTTPBody {
        let reporter = ReadEndReporter(end)
        return HTTPBody(length: length, iterationBehavior: iterationBehavior, onStop: { [self] in
            reporter.report(.stopped)
            stopReading()
        }) {
            var iterator = self.makeAsyncIterator()
            return AnyChunks(next: {
                do {
                    guard let next = try await iterator.next() else {
                        reporter.report(.finished)
                        return nil
                    }
                    chunk(next)
                    return next
                } catch {
                    reporter.report(.failed(error))
                    throw error
                }
            })
        }
    }
}

/// Tells the end of a reading once; a reading whose reporter goes away untold was stopped.
private final class ReadEndReporter: Sendable {
    private let end: @Sendable (HTTPBody.ReadEnd) -> Void
    private let isReported = Locked(false)

    init(_ end: @escaping @Sendable (HTTPBody.ReadEnd) -> Void) {
        self.end = end
    }

    func report(_ readEnd: HTTPBody.ReadEnd) {
        guard isReported.withLock({ isReported in
            defer { isReported = true }
            return !isReported
        }) else { return }
        end(readEnd)
    }

    deinit {
        report(.stopped)
    }
}
