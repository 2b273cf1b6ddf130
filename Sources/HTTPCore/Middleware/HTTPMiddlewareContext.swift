import Foundation

/// What a middleware knows about the exchange it takes part in, beyond the request.
public struct HTTPMiddlewareContext: Sendable {
    /// When the whole exchange must be over, on the monotonic clock: the start of the
    /// exchange plus the caller's ``HTTPRequest/timeout``; `nil` when there is none.
    ///
    /// A middleware that waits (a retry backoff) must not wait past it.
    public let deadline: DispatchTime?

    /// Creates a context; clients create it, tests of a middleware may too.
    public init(deadline: DispatchTime? = nil) {
        self.deadline = deadline
    }

    /// Seconds left before ``deadline`` (0 once it passed), or `nil` when there is none.
    public var remainingTime: TimeInterval? {
        guard let deadline else { return nil }
        let now = DispatchTime.now().uptimeNanoseconds
        return deadline.uptimeNanoseconds > now ? Double(deadline.uptimeNanoseconds - now) / 1_000_000_000 : 0
    }

    /// Why the exchange must stop now: ``HTTPError/timeout`` once the deadline passed,
    /// ``HTTPError/cancelled`` when the calling task was cancelled, `nil` when neither.
    ///
    /// Use it when a wait of your own was interrupted, to throw what the caller should see.
    public var interruption: HTTPError? {
        if let deadline, DispatchTime.now() >= deadline { return .timeout }
        return Task.isCancelled ? .cancelled : nil
    }
}
