import HTTPCoreConcurrency

extension HTTPBody {
    /// What ended a reading of a body.
    public enum ReadEnd: Sendable {
        /// The reader read it to its end.
        case finished
        /// Reading it failed (the connection broke, the deadline passed).
        case failed(any Error)
        /// The reader went away before its end: the exchange stopped it, or the body was
        /// dropped unread.
        case stopped
    }

    /// This body, its bytes unchanged, with each reading watched: `readingBegins` is told as
    /// a reading starts, `chunk` each chunk read, and `end` how that reading ended, once per
    /// reading. A body dropped or stopped before any reading ends once, `stopped`.
    ///
    /// For a middleware that measures what went through (a span that ends when the body does,
    /// with its real size) without reading the body itself. A replayable body is read again
    /// when a request is retried or redirected, so a count that `readingBegins` resets holds
    /// the last reading's bytes, not the sum of every attempt's. Stopping the returned body
    /// stops this one.
    ///
    /// Without `chunk`, the body's chunks pass through untouched. With it, a chunk that a
    /// transport handed over in its own storage is copied once for `chunk` (the reader still
    /// gets the transport's chunk); a middleware that only counts bytes, or reads them in
    /// place, watches pieces instead (`observingPieces(readingBegins:piece:end:)`, for
    /// transports and the integrations).
    public func observingReads(
        readingBegins: @escaping @Sendable () -> Void = {},
        chunk: (@Sendable (ByteChunk) -> Void)? = nil,
        end: @escaping @Sendable (ReadEnd) -> Void
    ) -> HTTPBody {
        var piece: (@Sendable (Piece) -> Void)?
        if let chunk { piece = { chunk($0.bytes) } }
        return observingPieces(readingBegins: readingBegins, piece: piece, end: end)
    }

    /// This body, its pieces unchanged and uncopied, with each reading watched as
    /// ``observingReads(readingBegins:chunk:end:)`` watches it: `piece` is shown each piece
    /// read, a transport's chunk in the transport's storage (read its bytes in place with
    /// ``Piece/withUnsafeBytes(_:)``, or count them with ``Piece/count``).
    ///
    /// - Parameters:
    ///   - readingBegins: told as each reading starts.
    ///   - piece: shown each piece read, before the reader gets it.
    ///   - end: told how each reading ended, once per reading.
    /// - Returns: the watched body, of the same length and iteration behaviour.
    @_spi(Transports) public func observingPieces(
        readingBegins: @escaping @Sendable () -> Void = {},
        piece: (@Sendable (Piece) -> Void)?,
        end: @escaping @Sendable (ReadEnd) -> Void
    ) -> HTTPBody {
        observingPieces(readingBegins: readingBegins, piece: piece, end: end, failure: nil)
    }

    /// ``observingPieces(readingBegins:piece:end:)``, with what a reading throws replaced by
    /// `failure`'s answer, given the error and the bytes that reading read before it; `end`
    /// is told the replacement.
    package func observingPieces(
        readingBegins: @escaping @Sendable () -> Void = {},
        piece: (@Sendable (Piece) -> Void)?,
        end: @escaping @Sendable (ReadEnd) -> Void,
        failure: (@Sendable (any Error, Int64) -> any Error)?
    ) -> HTTPBody {
        let readings = Readings(end)
        return HTTPBody(length: length, iterationBehavior: iterationBehavior, onStop: { [self] in
            readings.current.report(.stopped)
            stopReading()
        }) {
            readingBegins()
            let reporter = readings.begin()
            var iterator = self.makeAsyncIterator()
            var byteCount: Int64 = 0
            return AnyChunks(next: {
                do {
                    guard let next = try await iterator.nextPiece() else {
                        reporter.report(.finished)
                        return nil
                    }
                    byteCount += Int64(next.count)
                    piece?(next)
                    return next
                } catch {
                    let error = failure?(error, byteCount) ?? error
                    reporter.report(.failed(error))
                    throw error
                }
            })
        }
    }
}

/// The end reporters of a watched body's readings: the one of the reading under way, or,
/// before any, the one a body dropped unread reports through.
private final class Readings: Sendable {
    private let end: @Sendable (HTTPBody.ReadEnd) -> Void
    private let latest: Locked<ReadEndReporter>

    init(_ end: @escaping @Sendable (HTTPBody.ReadEnd) -> Void) {
        self.end = end
        latest = Locked(ReadEndReporter(end))
    }

    /// The reporter a stop is told to.
    var current: ReadEndReporter { latest.withLock { $0 } }

    /// A new reading's reporter. The unread body's reporter, if no reading began before, is
    /// retired untold: the body was read after all.
    func begin() -> ReadEndReporter {
        let reporter = ReadEndReporter(end, isReading: true)
        let previous = latest.withLock { latest in
            defer { latest = reporter }
            return latest
        }
        previous.retireIfUnread()
        return reporter
    }
}

/// Tells the end of one reading once; a reading whose reporter goes away untold was stopped.
private final class ReadEndReporter: Sendable {
    private enum State { case unread, reading, told }

    private let end: @Sendable (HTTPBody.ReadEnd) -> Void
    private let state: Locked<State>

    init(_ end: @escaping @Sendable (HTTPBody.ReadEnd) -> Void, isReading: Bool = false) {
        self.end = end
        state = Locked(isReading ? .reading : .unread)
    }

    func report(_ readEnd: HTTPBody.ReadEnd) {
        guard state.withLock({ state in
            defer { state = .told }
            return state != .told
        }) else { return }
        end(readEnd)
    }

    /// Marks the reporter of a body not yet read as done with, if nothing was told through it.
    func retireIfUnread() {
        state.withLock { state in
            if state == .unread { state = .told }
        }
    }

    deinit {
        report(.stopped)
    }
}
