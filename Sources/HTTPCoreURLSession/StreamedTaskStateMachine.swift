import HTTPCore

/// The life of one streamed URLSession task, as a pure state machine: what the delegate's
/// callbacks, the caller's cancellation and the reader's stop each mean, and what to do about
/// it. No I/O here: ``StreamedTask`` feeds it under a lock and performs the returned action.
///
/// The machine, not URLSession, decides how an exchange ends: FoundationNetworking sometimes
/// loses a `cancel()` that races the task's start, or delivers the whole body after it, so
/// whatever arrives once the exchange ended is dropped, and the task cancelled again at the
/// first late callback and at every further MiB.
///
/// `Head` is what waits for the response head: a continuation in ``StreamedTask``, any value in
/// tests.
struct StreamedTaskStateMachine<Head: Sendable> {
    /// Whether the task is reading or paused because the reader fell behind (Apple platforms).
    enum Flow: Equatable {
        case flowing
        /// A chunk is being handed over; the drain callback may run before it returns.
        case yielding
        /// The drain callback ran during the hand-over: no pause needed.
        case drainedWhileYielding
        case suspended
    }

    enum State {
        /// Before the task was resumed.
        case idle
        case waitingForHead(Head)
        case streaming(writer: HTTPBody.Writer, receivedBytes: Int64, flow: Flow)
        /// Over: the head failed, the body ended or failed, or the reader stopped.
        /// `lateBytes` counts what arrived since, to cancel the task again now and then.
        case ended(lateBytes: Int64)
    }

    private(set) var state = State.idle
    /// The most body bytes accepted; `nil` for no cap.
    let maximumBytes: Int64?

    init(maximumBytes: Int64?) {
        self.maximumBytes = maximumBytes
    }

    // MARK: Inputs

    enum StartAction {
        case resumeTask
        /// The caller was cancelled before the task started.
        case failHead(Head, any Error)
    }

    mutating func start(_ head: Head) -> StartAction {
        guard case .idle = state else { return .failHead(head, HTTPError.cancelled) }
        state = .waitingForHead(head)
        return .resumeTask
    }

    enum CancelAction {
        case none
        case failHeadAndCancelTask(Head)
    }

    /// The caller's task was cancelled while waiting for the head.
    mutating func cancel() -> CancelAction {
        switch state {
        case .idle:
            state = .ended(lateBytes: 0)
            return .none
        case .waitingForHead(let head):
            state = .ended(lateBytes: 0)
            return .failHeadAndCancelTask(head)
        case .streaming, .ended:
            // Once the head is delivered, the reader governs the body: its stop cancels.
            return .none
        }
    }

    enum HeadAction {
        case deliver(Head)
        case cancelTask
        case none
    }

    mutating func receiveHead(writer: HTTPBody.Writer) -> HeadAction {
        switch state {
        case .waitingForHead(let head):
            state = .streaming(writer: writer, receivedBytes: 0, flow: .flowing)
            return .deliver(head)
        case .ended(let lateBytes):
            return late(lateBytes, count: 0) ? .cancelTask : .none
        case .idle, .streaming:
            return .none
        }
    }

    enum DataAction {
        case yield(HTTPBody.Writer)
        case failBodyAndCancelTask(HTTPBody.Writer, receivedBytes: Int64)
        case cancelTask
        case none
    }

    mutating func receiveData(count: Int) -> DataAction {
        switch state {
        case .streaming(let writer, let receivedBytes, let flow):
            let total = receivedBytes + Int64(count)
            if let maximumBytes, total > maximumBytes {
                state = .ended(lateBytes: 0)
                return .failBodyAndCancelTask(writer, receivedBytes: total)
            }
            state = .streaming(writer: writer, receivedBytes: total, flow: flow == .flowing ? .yielding : flow)
            return .yield(writer)
        case .ended(let lateBytes):
            return late(lateBytes, count: count) ? .cancelTask : .none
        case .idle, .waitingForHead:
            return .none
        }
    }

    /// Counts a callback after the end: whether to cancel the task again (the first one, and
    /// one per MiB after it).
    private mutating func late(_ lateBytes: Int64, count: Int) -> Bool {
        let total = lateBytes + Int64(count) + 1
        state = .ended(lateBytes: total)
        return lateBytes == 0 || lateBytes >> 20 != total >> 20
    }

    /// The writer's answer to the chunk just yielded: whether to pause the task.
    mutating func yielded(_ result: HTTPBody.Writer.YieldResult) -> Bool {
        guard case .streaming(let writer, let receivedBytes, let flow) = state else { return false }
        switch (result, flow) {
        case (.full, .yielding):
            state = .streaming(writer: writer, receivedBytes: receivedBytes, flow: .suspended)
            return true
        case (.more, _), (.full, _):
            state = .streaming(writer: writer, receivedBytes: receivedBytes, flow: .flowing)
            return false
        case (.stopped, _):
            state = .ended(lateBytes: 0)
            return false
        }
    }

    /// The reader took half of the buffered bytes: whether to resume a paused task.
    mutating func drained() -> Bool {
        guard case .streaming(let writer, let receivedBytes, let flow) = state else { return false }
        switch flow {
        case .yielding:
            state = .streaming(writer: writer, receivedBytes: receivedBytes, flow: .drainedWhileYielding)
            return false
        case .suspended:
            state = .streaming(writer: writer, receivedBytes: receivedBytes, flow: .flowing)
            return true
        case .flowing, .drainedWhileYielding:
            return false
        }
    }

    /// Ends the body with a failure found by the driver (a reader too far behind): the writer
    /// to fail, if the body was still open.
    mutating func fail() -> HTTPBody.Writer? {
        guard case .streaming(let writer, _, _) = state else { return nil }
        state = .ended(lateBytes: 0)
        return writer
    }

    enum DeadlineAction {
        case failHead(Head)
        case failBody(HTTPBody.Writer)
        case none
    }

    /// The request's deadline passed: the head or the body to fail with a timeout, if the
    /// exchange was still under way.
    mutating func deadlinePassed() -> DeadlineAction {
        switch state {
        case .waitingForHead(let head):
            state = .ended(lateBytes: 0)
            return .failHead(head)
        case .streaming(let writer, _, _):
            state = .ended(lateBytes: 0)
            return .failBody(writer)
        case .idle, .ended:
            return .none
        }
    }

    /// The reader stopped before the end: whether the task must be cancelled.
    mutating func readerStopped() -> Bool {
        guard case .streaming = state else { return false }
        state = .ended(lateBytes: 0)
        return true
    }

    enum CompleteAction {
        case failHead(Head)
        case finishBody(HTTPBody.Writer)
        case none
    }

    mutating func complete() -> CompleteAction {
        defer { state = .ended(lateBytes: 1) }
        switch state {
        case .waitingForHead(let head): return .failHead(head)
        case .streaming(let writer, _, _): return .finishBody(writer)
        case .idle, .ended: return .none
        }
    }
}
