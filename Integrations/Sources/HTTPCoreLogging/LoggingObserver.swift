import Foundation
import HTTPCore
import Logging

/// An ``/HTTPCore/HTTPObserver`` that writes one swift-log line per completed exchange.
///
/// ```swift
/// HTTPEventDispatcher.shared.subscribe(LoggingObserver(logger: Logger(label: "http.client")))
/// // info: GET https://api.example.com/users/42?token=[REDACTED] -> 200 (12.4 ms)
/// //   http.request.id=7 http.request.method=GET http.response.status_code=200 trace_id=4bf9...
/// ```
///
/// The line and its metadata are what the client's policy exposes: the URL is redacted, and
/// request metadata (a trace id a middleware set, a route) arrives redacted too. The level
/// follows the outcome (``Levels``). Retried attempts are logged too, at ``Levels/retried``.
///
/// It logs on the task that sent the request, as the dispatcher runs every observer, so the
/// logger's metadata provider reads the caller's task-locals: a server's incoming request id
/// or a `ServiceContext` baggage item lands on the client's line, and a log handler that reads
/// the active span (swift-otel's) records the caller's trace. A retried attempt's line is
/// written when the next attempt begins, inside that attempt's span when tracing wraps each
/// attempt; the exchange's line after the middlewares returned, in the caller's span. The
/// attempt's own span is in the line's `trace_id` and `span_id` metadata when
/// `TracingMiddleware` set them.
public struct LoggingObserver: HTTPObserver {
    /// The level of each outcome.
    public struct Levels: Sendable, Hashable {
        /// A 1xx, 2xx or 3xx response.
        public var success: Logger.Level = .info
        /// A 4xx response.
        public var clientError: Logger.Level = .notice
        /// A 5xx response.
        public var serverError: Logger.Level = .warning
        /// A failure: no response (refused, timed out, invalid), or a response that failed after
        /// its status came (a body cut short, a stream that broke), whatever that status was.
        public var failure: Logger.Level = .error
        /// Cancelled by the caller.
        public var cancelled: Logger.Level = .notice
        /// An attempt that another one follows.
        public var retried: Logger.Level = .notice

        /// The default levels.
        public init() {}
    }

    /// The logger lines go to.
    public let logger: Logger
    /// The level of each outcome.
    public let levels: Levels

    /// Creates an observer writing to `logger`.
    public init(logger: Logger, levels: Levels = Levels()) {
        self.logger = logger
        self.levels = levels
    }

    /// Terminal and retried events: the only ones logged.
    public var handledEventNames: Set<HTTPEvent.Name>? {
        HTTPEvent.Name.terminal.union([.requestRetried])
    }

    /// Logs a terminal or retried event; ignores the others.
    ///
    /// Nothing is read, redacted or built for an event whose level the logger does not log.
    public func handle(_ event: HTTPEvent) {
        guard event.name.isTerminal || event.name == .requestRetried else { return }
        let level = level(of: event)
        guard logger.logLevel <= level else { return }
        // The URL and metadata are the only redacted parts read: headers and bodies never are.
        // After redirects, the request that got the status: its method and URL.
        let url = event.finalURL
        var metadata: Logger.Metadata = [
            "http.request.id": "\(event.requestID)",
            "http.request.method": "\(event.finalMethod.rawValue)",
            "url.full": "\(url)",
        ]
        if let redirection = event.redirection {
            metadata["http.redirected_from"] = "\(event.method.rawValue) \(event.requestURL)"
            metadata["http.redirect_statuses"] = .array(redirection.statusCodes.map { "\($0)" })
        }
        if let statusCode = event.statusCode { metadata["http.response.status_code"] = "\(statusCode)" }
        if let errorType = event.errorTypeName { metadata["error.type"] = "\(errorType)" }
        if let duration = event.durationMilliseconds { metadata["duration_ms"] = "\(Self.rounded(duration))" }
        if let correlationID = event.correlationID { metadata["correlation_id"] = "\(correlationID)" }
        if event.attempt > 1 || event.name == .requestRetried { metadata["http.request.resend_count"] = "\(event.attempt - 1)" }
        for (key, value) in event.metadata where metadata[key] == nil {
            metadata[key] = "\(value)"
        }
        logger.log(level: level, "\(Self.line(event, url: url))", metadata: metadata)
    }

    /// `GET <url> -> 200 (12.4 ms)`, `-> failed: timed out (…)`, `-> 200, then failed: … (…)`,
    /// `-> cancelled (…)`, `-> 200, then cancelled (…)`; after redirects the route: `POST <url> → 303 → GET <url> -> 200 (…)`.
    static func line(_ event: HTTPEvent, url: String) -> String {
        let outcome = event.outcome.map { "\($0)" } ?? "\(event.name)"
        let retried = event.name == .requestRetried ? ", retried" : ""
        let duration = event.durationMilliseconds.map { " (\(rounded($0)) ms\(retried))" } ?? ""
        let route = event.redirectRoute ?? "\(event.method.rawValue) \(url)"
        return "\(route) -> \(outcome)\(duration)"
    }

    private func level(of event: HTTPEvent) -> Logger.Level {
        if event.name == .requestRetried { return levels.retried }
        switch event.outcome {
        case .response(let statusCode)?:
            switch HTTPResponse.Status.Kind(code: statusCode) {
            case .clientError: return levels.clientError
            case .serverError: return levels.serverError
            default: return levels.success
            }
        case .failed?: return levels.failure
        case .cancelled?, nil: return levels.cancelled
        }
    }

    private static func rounded(_ milliseconds: Double) -> Double {
        (milliseconds * 10).rounded() / 10
    }
}
