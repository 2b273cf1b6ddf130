import Foundation
import HTTPCoreText
import HTTPCore
import HTTPCoreObservation
import HTTPCoreDelivery
import HTTPCoreURLSession

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Ships log lines to Grafana Loki's push API, batched, at no cost to the caller.
///
/// Log plain messages with metadata, as with LokiLogger and swift-log:
///
/// ```swift
/// let logger = LokiLogger(configuration: LokiConfiguration(url: URL(string: "http://127.0.0.1:3100")!, app: "checkout"))
/// logger.info("order placed", metadata: ["order_id": "8412"])
/// logger.error("payment declined", metadata: ["reason": "card_expired"])
/// await logger.flush()
/// ```
///
/// and one line per HTTP exchange with ``LokiObserver``.
///
/// - Cost: each call renders one line and enqueues it; pushes happen on the logger's own
///   workers, gzip included. ``LokiObserver`` enqueues events, whose lines are made there
///   too, when their batch is built.
/// - Memory: waiting entries are bounded by the configuration's `delivery` limits; the
///   oldest are dropped first, and counted in ``statistics``.
/// - Streams: every line carries the labels `app`, `environment` (when set), `level`,
///   `kind` (`log` or `http`) and the configured extra labels. Metadata goes into the line,
///   never into labels, so streams stay few.
/// - Privacy: messages and metadata pass the configuration's `redactor` (sensitive keys
///   masked, secrets in text scrubbed) before they are queued. ``LokiObserver``'s lines of
///   exchanges show what the client's policy exposes, redacted there.
/// - Failures: 429 and 5xx are retried (after `Retry-After` when given), other 4xx are
///   counted as rejected, an unreachable Loki is probed with backoff while the buffer keeps
///   the newest entries; entries older than the maximum age are dropped and counted.
public final class LokiLogger: Sendable {
    /// The configuration the logger was created with.
    package let configuration: LokiConfiguration
    private let queue: DeliveryQueue<HTTPPushSender<LokiPendingLine>>
    /// Makes the lines: plain ones when logged, those of observed events on the worker.
    private let lines: LokiLineBuilder
    /// The session the logger created for itself, invalidated at shutdown.
    private let ownedSession: URLSession?

    /// The longest line sent; longer ones are cut at a character boundary and marked with what
    /// was left out (`…[truncated, 120 more bytes]`), well under Loki's default
    /// `max_line_size` of 256 KB.
    package static let maximumLineBytes = 64 * 1024

    /// Creates a logger that pushes through `transport`, or through a `URLSession` of its
    /// own when `nil`. No connection is made until the first push.
    ///
    /// - Parameters:
    ///   - configuration: Where and how lines are pushed.
    ///   - transport: What performs the pushes; `nil` for a `URLSession` of the logger's own.
    public init(configuration: LokiConfiguration, transport: (any HTTPTransport)? = nil) {
        self.configuration = configuration
        let lines = LokiLineBuilder(configuration: configuration)
        self.lines = lines
        let session = transport == nil ? URLSession(configuration: URLSessionClient.makeDefaultConfiguration()) : nil
        ownedSession = session
        let sender = HTTPPushSender.loki(configuration: configuration, lines: lines, transport: transport ?? URLSessionTransport(session: session!))
        var delivery = configuration.delivery
        // The push body carries each stream's last timestamp from one batch to the next, and
        // events' lines are made with their batch: batches are built in the order they are sent.
        delivery.buildsBatchesAhead = false
        let diagnostics = configuration.diagnostics
        delivery.diagnostics = { diagnostics($0.diagnostic(source: "LokiLogger", items: "line")) }
        queue = DeliveryQueue(sender: sender, configuration: delivery)
    }

    /// Delivery counters: every entry ends delivered, dropped, expired, rejected or failed.
    public var statistics: DeliveryStatistics { queue.statistics }

    /// Logs `message` at `level`. Metadata keys become logfmt keys (or JSON keys) of the line.
    ///
    /// - Parameters:
    ///   - level: The line's level, also its stream's `level` label.
    ///   - message: The line's message, redacted.
    ///   - metadata: Keys and values added to the line, redacted.
    ///   - date: The line's timestamp; now by default.
    public func log(_ level: LokiLevel, _ message: String, metadata: [String: String] = [:], date: Date = Date()) {
        enqueue(.line(lines.logEntry(level, message, metadata: metadata, date: date)))
    }

    /// Logs `message` at ``LokiLevel/trace``; see ``log(_:_:metadata:date:)``.
    ///
    /// - Parameters:
    ///   - message: The line's message, redacted.
    ///   - metadata: Keys and values added to the line, redacted.
    public func trace(_ message: String, metadata: [String: String] = [:]) { log(.trace, message, metadata: metadata) }
    /// Logs `message` at ``LokiLevel/debug``; see ``log(_:_:metadata:date:)``.
    ///
    /// - Parameters:
    ///   - message: The line's message, redacted.
    ///   - metadata: Keys and values added to the line, redacted.
    public func debug(_ message: String, metadata: [String: String] = [:]) { log(.debug, message, metadata: metadata) }
    /// Logs `message` at ``LokiLevel/info``; see ``log(_:_:metadata:date:)``.
    ///
    /// - Parameters:
    ///   - message: The line's message, redacted.
    ///   - metadata: Keys and values added to the line, redacted.
    public func info(_ message: String, metadata: [String: String] = [:]) { log(.info, message, metadata: metadata) }
    /// Logs `message` at ``LokiLevel/notice``; see ``log(_:_:metadata:date:)``.
    ///
    /// - Parameters:
    ///   - message: The line's message, redacted.
    ///   - metadata: Keys and values added to the line, redacted.
    public func notice(_ message: String, metadata: [String: String] = [:]) { log(.notice, message, metadata: metadata) }
    /// Logs `message` at ``LokiLevel/warning``; see ``log(_:_:metadata:date:)``.
    ///
    /// - Parameters:
    ///   - message: The line's message, redacted.
    ///   - metadata: Keys and values added to the line, redacted.
    public func warning(_ message: String, metadata: [String: String] = [:]) { log(.warning, message, metadata: metadata) }
    /// Logs `message` at ``LokiLevel/error``; see ``log(_:_:metadata:date:)``.
    ///
    /// - Parameters:
    ///   - message: The line's message, redacted.
    ///   - metadata: Keys and values added to the line, redacted.
    public func error(_ message: String, metadata: [String: String] = [:]) { log(.error, message, metadata: metadata) }
    /// Logs `message` at ``LokiLevel/critical``; see ``log(_:_:metadata:date:)``.
    ///
    /// - Parameters:
    ///   - message: The line's message, redacted.
    ///   - metadata: Keys and values added to the line, redacted.
    public func critical(_ message: String, metadata: [String: String] = [:]) { log(.critical, message, metadata: metadata) }

    /// Returns when every line logged before the call was pushed or given up; batches that
    /// are not full are pushed at once. While Loki is unreachable it returns once no probe is
    /// under way: the waiting lines stay buffered (`pending`) for when Loki is back.
    public func flush() async {
        await queue.flush()
    }

    /// Flushes, then stops the workers (and the logger's own session). Later lines are
    /// dropped, counted (``/HTTPCoreDelivery/DeliveryStatistics/droppedAfterShutdown``) and
    /// reported to ``LokiConfiguration/diagnostics``: the first at once, a flood of them in a
    /// few reports.
    /// Shut the logger down after the code that logs: last.
    public func shutdown() async {
        await queue.shutdown()
        ownedSession?.finishTasksAndInvalidate()
    }

    /// Queues the event of an exchange, an attempt or a message for ``LokiObserver``: its
    /// line is made when its batch is built, on the logger's worker.
    func enqueue(_ event: HTTPEvent) {
        enqueue(.event(event))
    }

    private func enqueue(_ line: LokiPendingLine) {
        queue.enqueue(line, byteCost: line.byteCost)
    }
}
