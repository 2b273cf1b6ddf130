import HTTPCoreConcurrency

extension HTTPBody {
    /// Makes a one-pass body that a producer writes into as bytes arrive: the way a transport
    /// hands a response body to its caller while it is still being received.
    ///
    /// The body holds at most about `bufferSize` unread bytes: past that, ``Writer/write(_:)``
    /// suspends and ``Writer/yield(_:whenDrained:)`` answers ``Writer/YieldResult/full`` until
    /// the reader has taken half of them, so a slow reader slows the producer instead of
    /// filling memory.
    ///
    /// ```swift
    /// let (body, writer) = HTTPBody.makeStream(length: .known(size))
    /// writer.onTermination { connection.cancel() }   // the reader stopped early
    /// Task {
    ///     for await piece in connection.pieces { try await writer.write(piece) }
    ///     writer.finish()
    /// }
    /// return (head, body)
    /// ```
    ///
    /// Reading the body from a cancelled task throws `CancellationError` and ends the body
    /// for the producer (``Writer/onTermination(_:)``); so does an exchange that ends before
    /// the reader reached the end of the body.
    ///
    /// - Parameters:
    ///   - length: The byte count when known in advance.
    ///   - bufferSize: The unread bytes above which the producer waits; at least 1.
    public static func makeStream(length: Length = .unknown, bufferSize: Int = 256 * 1024) -> (body: HTTPBody, writer: Writer) {
        let stream = ChunkStream(bufferSize: Swift.max(1, bufferSize))
        let body = HTTPBody(length: length, iterationBehavior: .single, onStop: { stream.stopReading() }) {
            AnyChunks(next: { try await stream.next() })
        }
        return (body, Writer(stream: stream))
    }

    /// The producing end of a body made by ``HTTPBody/makeStream(length:bufferSize:)``.
    ///
    /// Write chunks in order from one producer, then end the body once with ``finish()`` or
    /// ``finish(throwing:)``. Writes after the end, or after the reader stopped, are dropped.
    public struct Writer: Sendable {
        private let stream: ChunkStream

        fileprivate init(stream: ChunkStream) {
            self.stream = stream
        }

        /// What ``yield(_:whenDrained:)`` tells the producer to do next.
        public enum YieldResult: Sendable, Hashable {
            /// The buffer has room: produce the next chunk.
            case more
            /// The buffer is full: pause producing until the `whenDrained` callback runs.
            case full
            /// The reader is gone or the body ended: stop producing; the chunk was dropped.
            case stopped
        }

        /// Appends a chunk, suspending while the buffer is full until the reader catches up.
        ///
        /// - Throws: `CancellationError` when the reader stopped (or the writing task was
        ///   cancelled while waiting): stop producing.
        public func write(_ chunk: ByteChunk) async throws {
            try await stream.write(.bytes(chunk))
        }

        /// Appends a chunk without suspending, for producers driven by callbacks (a delegate
        /// that receives data).
        ///
        /// On ``YieldResult/full``, pause the source (suspend the task, stop reading the
        /// socket); `whenDrained` runs once, on the reader's task, when the reader has taken
        /// half of the buffered bytes, or the reader stopped. It is not kept otherwise.
        public func yield(_ chunk: ByteChunk, whenDrained: @escaping @Sendable () -> Void) -> YieldResult {
            stream.yield(.bytes(chunk), whenDrained: whenDrained)
        }

        /// Appends a piece without suspending; see ``yield(_:whenDrained:)``.
        func yield(piece: Piece, whenDrained: @escaping @Sendable () -> Void) -> YieldResult {
            stream.yield(piece, whenDrained: whenDrained)
        }

        /// Ends the body: the reader gets the chunks already written, then the end.
        public func finish() {
            stream.finish(throwing: nil)
        }

        /// Ends the body with a failure: the reader gets the chunks already written, then
        /// `error`. Throw an ``HTTPError`` (`.connectionLost` for a dropped connection).
        public func finish(throwing error: any Error) {
            stream.finish(throwing: error)
        }

        /// Registers what to do when the reader stops before the end of the body: its task was
        /// cancelled, or the exchange ended without reading on. Runs once, at once if the
        /// reader already stopped; never after the body ended normally.
        public func onTermination(_ handler: @escaping @Sendable () -> Void) {
            stream.onTermination(handler)
        }
    }
}

/// The buffer between one producer and one reader of a streamed body.
final class ChunkStream: Sendable {
    private typealias Reader = CheckedContinuation<HTTPBody.Piece?, any Error>
    typealias Wakeup = @Sendable () -> Void

    private struct State {
        var chunks = BoundedQueue<HTTPBody.Piece>(capacity: .max)
        var bufferedBytes = 0
        /// Set once the producer ended the body.
        var isFinished = false
        /// The producer's failure, until the reader took it.
        var failure: (any Error)?
        /// Whether the reader stopped before the end.
        var isStopped = false
        var reader: Reader?
        var writers: [CheckedContinuation<Void, any Error>] = []
        var drained: [Wakeup] = []
        var onTermination: Wakeup?

        var isOpen: Bool { !isFinished && !isStopped }
    }

    /// What the reader finds.
    private enum Poll {
        case chunk(HTTPBody.Piece, wakeups: [Wakeup])
        case end
        case failure(any Error)
        case wait
    }

    private let bufferSize: Int
    private let state = Locked(State())

    init(bufferSize: Int) {
        self.bufferSize = bufferSize
    }

    // MARK: Reading

    func next() async throws -> HTTPBody.Piece? {
        switch state.withLock({ poll(&$0) }) {
        case .chunk(let chunk, let wakeups):
            wakeups.forEach { $0() }
            return chunk
        case .end: return nil
        case .failure(let error): throw error
        case .wait: break
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: Reader) in
                let found = state.withLock { state -> Poll in
                    let found = poll(&state)
                    guard case .wait = found else { return found }
                    guard !Task.isCancelled else { return .failure(CancellationError()) }
                    state.reader = continuation
                    return .wait
                }
                switch found {
                case .chunk(let chunk, let wakeups):
                    wakeups.forEach { $0() }
                    continuation.resume(returning: chunk)
                case .end: continuation.resume(returning: nil)
                case .failure(let error):
                    if error is CancellationError { stopReading() }
                    continuation.resume(throwing: error)
                case .wait: break
                }
            }
        } onCancel: {
            stopReading()
        }
    }

    /// Takes what is ready for the reader: a chunk (waking a paused producer once half the
    /// buffer is taken), the end, or the failure.
    private func poll(_ state: inout State) -> Poll {
        if let chunk = state.chunks.popFirst() {
            state.bufferedBytes -= chunk.count
            return .chunk(chunk, wakeups: state.bufferedBytes <= bufferSize / 2 ? takeWakeups(&state) : [])
        }
        if state.isStopped { return .failure(CancellationError()) }
        if let failure = state.failure {
            state.failure = nil
            return .failure(failure)
        }
        return state.isFinished ? .end : .wait
    }

    private func takeWakeups(_ state: inout State) -> [Wakeup] {
        guard !state.writers.isEmpty || !state.drained.isEmpty else { return [] }
        let writers = state.writers
        defer {
            state.writers.removeAll()
            state.drained.removeAll()
        }
        return writers.map { writer in { writer.resume() } } + state.drained
    }

    /// The reader stopped: drops the buffer, wakes the producer with the news and, when the
    /// body had not ended, runs the termination handler.
    func stopReading() {
        let (reader, writers, wakeups) = state.withLock { state -> (Reader?, [CheckedContinuation<Void, any Error>], [Wakeup]) in
            guard !state.isStopped else { return (nil, [], []) }
            state.isStopped = true
            state.chunks.removeAll()
            state.bufferedBytes = 0
            defer {
                state.reader = nil
                state.writers.removeAll()
                state.drained.removeAll()
                state.onTermination = nil
            }
            return (state.reader, state.writers, state.drained + (state.onTermination.map { [$0] } ?? []))
        }
        reader?.resume(throwing: CancellationError())
        writers.forEach { $0.resume(throwing: CancellationError()) }
        wakeups.forEach { $0() }
    }

    // MARK: Writing

    func write(_ chunk: HTTPBody.Piece) async throws {
        switch accept(chunk) {
        case .more: return
        case .stopped: throw CancellationError()
        case .full: break
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let outcome = state.withLock { state -> Result<Void, any Error>? in
                    if state.isStopped || Task.isCancelled { return .failure(CancellationError()) }
                    guard state.bufferedBytes > bufferSize / 2 else { return .success(()) }
                    state.writers.append(continuation)
                    return nil
                }
                if let outcome { continuation.resume(with: outcome) }
            }
        } onCancel: {
            let writers = state.withLock { state in
                defer { state.writers.removeAll() }
                return state.writers
            }
            writers.forEach { $0.resume(throwing: CancellationError()) }
        }
    }

    func yield(_ chunk: HTTPBody.Piece, whenDrained: @escaping Wakeup) -> HTTPBody.Writer.YieldResult {
        let result = accept(chunk)
        guard result == .full else { return result }
        let isDrained = state.withLock { state -> Bool in
            guard !state.isStopped, state.bufferedBytes > bufferSize / 2 else { return true }
            state.drained.append(whenDrained)
            return false
        }
        if isDrained { whenDrained() }
        return .full
    }

    /// Hands the chunk to a waiting reader or buffers it.
    private func accept(_ chunk: HTTPBody.Piece) -> HTTPBody.Writer.YieldResult {
        let (reader, result) = state.withLock { state -> (Reader?, HTTPBody.Writer.YieldResult) in
            guard state.isOpen else { return (nil, .stopped) }
            if let reader = state.reader {
                state.reader = nil
                return (reader, .more)
            }
            state.chunks.append(chunk)
            state.bufferedBytes += chunk.count
            return (nil, state.bufferedBytes >= bufferSize ? .full : .more)
        }
        reader?.resume(returning: chunk)
        return result
    }

    func finish(throwing error: (any Error)?) {
        let reader = state.withLock { state -> Reader? in
            guard state.isOpen else { return nil }
            state.isFinished = true
            state.onTermination = nil
            guard let reader = state.reader else {
                state.failure = error
                return nil
            }
            state.reader = nil
            return reader
        }
        guard let reader else { return }
        if let error { reader.resume(throwing: error) } else { reader.resume(returning: nil) }
    }

    func onTermination(_ handler: @escaping Wakeup) {
        let runsNow = state.withLock { state -> Bool in
            guard !state.isFinished else { return false }
            if state.isStopped { return true }
            state.onTermination = handler
            return false
        }
        if runsNow { handler() }
    }
}
