import Foundation
import HTTPCore
import HTTPCoreObservation
import Tracing

/// An observer that records one client span per WebSocket connection, from the handshake to
/// the close or the failure, with its message counts and bytes each way and its close.
///
/// A WebSocket connection does not pass through ``TracingMiddleware`` (it is no
/// request-response exchange), so the span is made from the connection's events: the parent
/// is the service context current when the connection was created, and the span is started
/// and ended at the connection's own times when its terminal event comes.
///
/// Attributes: `url.full` (redacted), `server.address`, `http.response.status_code` (101 once
/// open), `websocket.messages.sent`, `websocket.messages.received`, `websocket.bytes.sent`,
/// `websocket.bytes.received` (close frames counted as messages, as the summary counts them),
/// `websocket.close.code` and `websocket.close.initiator` (`client` or `server`) when it
/// closed, and `error.type` with an error status when it failed or was cancelled.
///
/// ```swift
/// dispatcher.subscribe(WebSocketSpanObserver())
/// ```
public struct WebSocketSpanObserver: HTTPObserver {
    private let configuredTracer: (any Tracer)?
    private let parents: HTTPExchangeTable<ServiceContext>

    /// How many connections' parent contexts are kept at once by default.
    public static let defaultMaximumTrackedExchanges = 10_000

    /// Makes an observer that records its spans with `tracer`.
    ///
    /// - Parameters:
    ///   - tracer: The tracer spans go to; the bootstrapped `InstrumentationSystem.tracer`
    ///     when nil.
    ///   - maximumTrackedExchanges: How many open connections keep their parent context; one
    ///     created past it gets a span without a parent.
    ///   - diagnostics: Where the observer reports that it reached that limit.
    public init(
        tracer: (any Tracer)? = nil, maximumTrackedExchanges: Int = WebSocketSpanObserver.defaultMaximumTrackedExchanges,
        diagnostics: @escaping @Sendable (HTTPDiagnostic) -> Void = { HTTPDiagnostics.report($0) }
    ) {
        configuredTracer = tracer
        parents = HTTPExchangeTable(limit: maximumTrackedExchanges, owner: "WebSocketSpanObserver", diagnostics: diagnostics)
    }

    /// The tracer spans go to.
    public var tracer: any Tracer { configuredTracer ?? InstrumentationSystem.tracer }

    /// Created and terminal events: the only ones a span needs.
    public var handledEventNames: Set<HTTPEvent.Name>? { HTTPEvent.Name.terminal.union([.requestCreated]) }

    /// Keeps the parent context of a created WebSocket connection, and records the span of an
    /// ended one; ignores every other exchange.
    ///
    /// - Parameter event: An event of any exchange.
    public func handle(_ event: HTTPEvent) {
        if event.name == .requestCreated {
            let url = event.request.url.lowercased()
            guard url.hasPrefix("ws://") || url.hasPrefix("wss://") else { return }
            parents.keep(ServiceContext.current ?? .topLevel, for: event.requestID)
            return
        }
        let exchange: HTTPEvent.Exchange, response: HTTPEvent.Response?, errorType: String?
        switch event.step {
        case .succeeded(let received, let ended): (exchange, response, errorType) = (ended, received, nil)
        case .failed(let error, let received, let ended): (exchange, response, errorType) = (ended, received, error.typeName)
        case .cancelled(let received, let ended): (exchange, response, errorType) = (ended, received, HTTPError.Code.cancelled.rawValue)
        case .created, .started, .received, .message, .retried: return
        }
        let parent = parents.take(for: event.requestID)
        guard let summary = exchange.webSocket else { return }
        let request = event.request
        let span = tracer.startSpan(
            "WebSocket \(request.host ?? "")", context: parent ?? ServiceContext.current ?? .topLevel, ofKind: .client,
            at: Self.instant(exchange.startedAt)
        )
        span.attributes["url.full"] = request.url
        if let host = request.host { span.attributes["server.address"] = host }
        if let response { span.attributes["http.response.status_code"] = response.statusCode }
        span.attributes["websocket.messages.sent"] = summary.sentMessageCount
        span.attributes["websocket.messages.received"] = summary.receivedMessageCount
        span.attributes["websocket.bytes.sent"] = summary.sentByteCount
        span.attributes["websocket.bytes.received"] = summary.receivedByteCount
        if let close = summary.close {
            span.attributes["websocket.close.code"] = close.code
            span.attributes["websocket.close.initiator"] = close.initiator == .client ? "client" : "server"
        }
        if let errorType {
            span.attributes["error.type"] = errorType
            span.setStatus(SpanStatus(code: .error, message: errorType))
        }
        span.end(at: Self.instant(exchange.endedAt))
    }

    private static func instant(_ date: Date) -> DefaultTracerClock.Instant {
        DefaultTracerClock.Instant(nanosecondsSinceEpoch: UInt64(max(0, date.timeIntervalSince1970 * 1_000_000_000).rounded()))
    }
}
