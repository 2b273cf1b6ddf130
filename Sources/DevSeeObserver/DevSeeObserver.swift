import HTTPCore

/// An ``HTTPObserver`` that logs every HTTP exchange to dev-see.
///
/// Subscribing it to a dispatcher is the whole integration: every request of every client
/// on that dispatcher is logged exactly once, at its terminal event, with request and
/// response joined. A request that middlewares sent more than once also logs each attempt
/// that was retried (``HTTPEvent/Name/requestRetried``), so a 503 followed by a 200 shows as
/// two logs of one request id, each with its `attempt` number. The request's metadata (a
/// trace id, a route template) travels as the payload's `metadata` object.
///
/// ```swift
/// let dispatcher = HTTPEventDispatcher()
/// dispatcher.subscribe(DevSeeObserver())
/// let client = URLSessionClient(dispatcher: dispatcher)
/// ```
///
/// What a log shows is what the client's `HTTPCorePolicy` exposes, redacted once more by the
/// logger's own ``DevSeeLoggerConfiguration/redactor``. `handle(_:)` only hands the event to
/// the logger's buffer; building and uploading the payload happen on the logger's workers.
public struct DevSeeObserver: HTTPObserver {
    private let fixedLogger: DevSeeLogger?

    /// The logger that ships the logs: the one given at creation, else
    /// `DevSeeLoggerCenter.shared` at the time of each event, so an observer created before
    /// `DevSeeLoggerCenter.configure(_:)` follows the configured logger.
    public var logger: DevSeeLogger { fixedLogger ?? DevSeeLoggerCenter.shared }

    /// Creates an observer that logs through `logger`, or through the center's shared logger
    /// when `logger` is `nil`.
    public init(logger: DevSeeLogger? = nil) {
        fixedLogger = logger
    }

    /// Logs terminal and retried events, and notes when attempts after the first start (for
    /// the timing of the last one); ignores the others.
    public func handle(_ event: HTTPEvent) {
        let isLaterAttemptStart = event.name == .requestStarted && event.attempt > 1
        guard event.name.isTerminal || event.name == .requestRetried || isLaterAttemptStart else { return }
        logger.accept(event)
    }
}
