import Foundation
import HTTPCore
import HTTPCoreObservation
import Logging

/// An ``/HTTPCoreObservation/HTTPObserver`` that writes one swift-log line per completed exchange.
///
/// ```swift
/// HTTPEventDispatcher.shared.subscribe(LoggingObserver(logger: Logger(label: "http.client")))
/// // info: GET https://api.example.com/users/42?token=[REDACTED] -> 200 (12.4 ms)
/// //   http.request.id=7 http.request.method=GET http.response.status_code=200 trace_id=4bf9...
/// ```
///
/// The line and its metadata are what the client's policy exposes: the URL is redacted, and
/// request metadata (a trace id a middleware set, a route) arrives redacted too. `http.request.id`
/// is the client's own number for the exchange (`http_request_id` on a Loki line); the request's
/// metadata keeps its own keys, so a server's incoming `request_id` stays `request_id`, and a
/// key the line already has (`url.full`, `duration_ms`) is written as `metadata.<key>`. The level
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
        guard let end = End(event.step) else { return }
        let level = level(of: end)
        guard logger.logLevel <= level else { return }
        // The URL and metadata are the only redacted parts read: headers and bodies never are.
        // After redirects, the request that got the status: its method and URL.
        let request = event.request
        let redirection = end.response?.redirection
        let url = redirection == nil ? request.url : end.response?.url ?? request.url
        var metadata: Logger.Metadata = [
            "http.request.id": "\(event.requestID)",
            "http.request.method": "\((redirection?.method ?? request.method).rawValue)",
            "url.full": "\(url)",
        ]
        var route = "\(request.method.rawValue) \(url)"
        if let redirection {
            metadata["http.redirected_from"] = "\(request.method.rawValue) \(request.url)"
            metadata["http.redirect_statuses"] = .array(redirection.statusCodes.map { "\($0)" })
            route = redirection.route(from: request.method.rawValue, request.url, to: url)
        }
        if let response = end.response { metadata["http.response.status_code"] = "\(response.statusCode)" }
        if let errorType = end.errorType { metadata["error.type"] = "\(errorType)" }
        metadata["duration_ms"] = "\(Self.rounded(end.durationMilliseconds))"
        if let correlationID = event.correlationID { metadata["correlation_id"] = "\(correlationID)" }
        if event.attempt > 1 || end.isRetried { metadata["http.request.resend_count"] = "\(event.attempt - 1)" }
        Self.add(request.metadata, to: &metadata)
        logger.log(level: level, "\(Self.line(end, route: route))", metadata: metadata)
    }

    /// Adds the request's metadata under its own keys (a server's incoming `request_id` stays
    /// `request_id`), except a key the line has, or one that reads as it once dots become
    /// underscores (as LogQL's `| logfmt` reads them): that one is `metadata.<key>`, never dropped.
    static func add(_ requestMetadata: [String: String], to metadata: inout Logger.Metadata) {
        guard !requestMetadata.isEmpty else { return }
        func flattened(_ key: String) -> String { key.replacingOccurrences(of: ".", with: "_") }
        var taken = Set(metadata.keys.map(flattened))
        for (key, value) in requestMetadata.sorted(by: { $0.key < $1.key }) {
            var name = key
            while taken.contains(flattened(name)) { name = "metadata." + name }
            taken.insert(flattened(name))
            metadata[name] = "\(value)"
        }
    }

    /// `GET <url> -> 200 (12.4 ms)`, `-> failed: timed out (…)`, `-> 200, then failed: … (…)`,
    /// `-> cancelled (…)`, `-> 200, then cancelled (…)`; after redirects the route: `POST <url> → 303 → GET <url> -> 200 (…)`.
    private static func line(_ end: End, route: String) -> String {
        let retried = end.isRetried ? ", retried" : ""
        return "\(route) -> \(end.outcome) (\(rounded(end.durationMilliseconds)) ms\(retried))"
    }

    private func level(of end: End) -> Logger.Level {
        if end.isRetried { return levels.retried }
        if end.isCancelled { return levels.cancelled }
        if end.error != nil { return levels.failure }
        switch end.response?.status.kind {
        case .clientError?: return levels.clientError
        case .serverError?: return levels.serverError
        default: return levels.success
        }
    }

    /// How a logged event ended: an exchange (terminal) or an attempt another followed.
    private struct End {
        var response: HTTPEvent.Response?
        var error: HTTPError?
        var isCancelled = false
        var isRetried = false
        var durationMilliseconds: Double

        /// The end a terminal or retried step carries; `nil` for the other steps.
        init?(_ step: HTTPEvent.Step) {
            switch step {
            case .retried(let result, let attempt):
                switch result {
                case .success(let response): self.response = response
                case .failure(let error): self.error = error
                }
                isRetried = true
                guard let duration = attempt.durationMilliseconds else {
                    preconditionFailure("LoggingObserver: a retried attempt has ended, so its duration is known")
                }
                durationMilliseconds = duration
            case .succeeded(let response, let exchange):
                self.response = response
                durationMilliseconds = exchange.durationMilliseconds
            case .failed(let error, let response, let exchange):
                (self.error, self.response) = (error, response)
                durationMilliseconds = exchange.durationMilliseconds
            case .cancelled(let response, let exchange):
                self.response = response
                isCancelled = true
                durationMilliseconds = exchange.durationMilliseconds
            case .created, .started, .received, .message:
                return nil
            }
        }

        /// The `error.type` of a failure (`cancelled` for a cancellation).
        var errorType: String? { isCancelled ? HTTPError.Code.cancelled.rawValue : error?.typeName }

        /// `200`, `failed: timed out`, `cancelled`; a status that came before a failure or a
        /// cancellation comes first: `200, then failed: …`, `200, then cancelled`.
        var outcome: String {
            let status = response.map { "\($0.statusCode)" }
            let then = status.map { "\($0), then " } ?? ""
            if isCancelled { return then + "cancelled" }
            if let error { return then + "failed: \(error)" }
            guard let status else {
                preconditionFailure("LoggingObserver: an end that is neither a failure nor a cancellation carries its response")
            }
            return status
        }
    }

    private static func rounded(_ milliseconds: Double) -> Double {
        (milliseconds * 10).rounded() / 10
    }
}
