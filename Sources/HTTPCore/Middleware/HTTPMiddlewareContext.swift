import Foundation
import HTTPCoreConcurrency

/// What a middleware knows about the exchange it takes part in, beyond the request.
public struct HTTPMiddlewareContext: Sendable {
    /// When the whole exchange must be over, on the monotonic clock: the start of the
    /// exchange plus the caller's ``HTTPRequest/timeout``; `nil` when there is none.
    ///
    /// A middleware that waits (a retry backoff) must not wait past it.
    public let deadline: DispatchTime?

    /// The exchange's attempts, when a client runs the chain; `nil` in a context made by hand.
    private let attempts: (any HTTPMiddlewareAttemptCounter)?
    /// The client's policy's redactor when a client runs the chain (one reference, not a
    /// copy); in a context made by hand, the one it was given, or the default policy's.
    private let redaction: SharedRedactor
    /// What ``attemptsStarted`` answers in a context made by hand.
    private let givenAttemptsStarted: Int

    /// Creates a context; clients create it, tests of a middleware may too.
    ///
    /// - Parameters:
    ///   - deadline: When the whole exchange must be over.
    ///   - attemptsStarted: What ``attemptsStarted`` answers: the attempts this call follows.
    ///   - redactor: What ``redactor`` answers; `nil`, the default policy's.
    public init(deadline: DispatchTime? = nil, attemptsStarted: Int = 0, redactor: Redactor? = nil) {
        self.deadline = deadline
        attempts = nil
        givenAttemptsStarted = max(0, attemptsStarted)
        redaction = redactor.map(SharedRedactor.init) ?? Self.defaultRedaction
    }

    /// A client's context, whose ``attemptsStarted`` follows `attempts`, under the client's `policy`.
    package init(deadline: DispatchTime?, attempts: any HTTPMiddlewareAttemptCounter, redaction: SharedRedactor) {
        self.deadline = deadline
        self.attempts = attempts
        self.redaction = redaction
        givenAttemptsStarted = 0
    }

    /// The redactor of the client's policy (`HTTPCorePolicy`): what a middleware that sends
    /// request data elsewhere (a span's `url.full`, a log line) redacts it with, so that the
    /// policy is the one place redaction is configured. In a context made by hand, the one it
    /// was given, else ``/HTTPCoreRedaction/Redactor/standard``, the default policy's.
    public var redactor: Redactor {
        // Lent in place, not copied out of the box: a copy retains and releases each of the
        // redactor's references, on every read.
        _read { yield redaction.redactor }
    }

    /// The default policy's redactor, boxed once, that a context made by hand without a
    /// redactor redacts with.
    private static let defaultRedaction = SharedRedactor(.standard)

    /// How many attempts of this exchange reached the transport before this call of the
    /// middleware: 0 on the first.
    ///
    /// A middleware placed after ``RetryMiddleware`` is called once per attempt, so for it this
    /// is the attempt's resend count (OpenTelemetry's `http.request.resend_count`): 0, then 1
    /// on the first retry. A middleware before it is called once and always sees 0.
    public var attemptsStarted: Int {
        attempts?.startedCount ?? givenAttemptsStarted
    }

    /// Seconds left before ``deadline`` (0 once it passed), or `nil` when there is none.
    public var remainingTime: TimeInterval? {
        guard let deadline else { return nil }
        let now = MonotonicClock.nanoseconds()
        return deadline.uptimeNanoseconds > now ? Double(deadline.uptimeNanoseconds - now) / 1_000_000_000 : 0
    }

    /// Why the exchange must stop now: ``HTTPError/timeout`` once the deadline passed,
    /// ``HTTPError/cancelled`` when the calling task was cancelled, `nil` when neither.
    ///
    /// Use it when a wait of your own was interrupted, to throw what the caller should see.
    public var interruption: HTTPError? {
        if let deadline, MonotonicClock.nanoseconds() >= deadline.uptimeNanoseconds { return .timeout }
        return Task.isCancelled ? .cancelled : nil
    }

    /// `work`'s result, or ``HTTPError/timeout`` once ``deadline`` passed (`work` is then
    /// cancelled): how a middleware bounds a wait it does not control, a credential refresh or
    /// a rate limiter, so that the caller's timeout still bounds the exchange. Without a
    /// deadline it runs `work` as it is.
    public func withinDeadline<Value: Sendable>(_ work: @escaping @Sendable () async throws -> Value) async throws -> Value {
        guard let remaining = remainingTime else { return try await work() }
        do {
            return try await withDeadline(seconds: remaining, work)
        } catch is DeadlineExceeded {
            throw HTTPError.timeout
        }
    }
}

/// A redactor boxed once, so that each middleware context of a client's exchanges holds one
/// reference to it rather than a copy (a retain and a release of each of its references): the
/// client's policy boxes its redactor so.
package final class SharedRedactor: Sendable {
    /// The redactor, as given.
    package let redactor: Redactor

    /// Boxes `redactor`.
    package init(_ redactor: Redactor) {
        self.redactor = redactor
    }
}

/// Where a client's context reads how many attempts have begun: the exchange's attempt log.
package protocol HTTPMiddlewareAttemptCounter: Sendable {
    /// How many attempts have begun.
    var startedCount: Int { get }
}
