/// One report that a component of HTTPCore makes about itself: items lost, a destination
/// unreachable or back, a refusal.
///
/// Every component that can lose something it accepted reports it, once per occurrence and
/// never once per item, and counts it in its statistics: the delivery engine and the loggers
/// built on it (`DeliveryDiagnostic`), and the service that shuts them down. Each hands its reports to a handler of its own when given one, else to
/// ``HTTPDiagnostics/handler``, the one process-wide default.
///
/// ```swift
/// HTTPDiagnostics.handler = { diagnostic in
///     guard diagnostic.level != .notice else { return }
///     myLog(diagnostic.description)   // LokiLogger: 23 lines arrived after shutdown and were dropped
/// }
/// ```
///
/// What a report counts is also in its ``metadata`` (as swift-log metadata once bridged):
/// `lost` is how many items the report is about that were lost for good.
public struct HTTPDiagnostic: Sendable, Hashable, CustomStringConvertible {
    /// How serious a report is, named after the swift-log level it is logged at.
    public enum Level: String, Sendable, Hashable, CaseIterable {
        /// Back to normal: a destination answers again.
        case notice
        /// Something that loses items if it goes on: an outage, a buffer full and dropping.
        case warning
        /// Items were lost for good, or will be: the report says how many and why.
        case error
    }

    /// The type that reports, as a user knows it: `LokiLogger`, `DevSeeLogger`,
    /// `HTTPObservabilityService`.
    public var source: String
    /// How serious it is.
    public var level: Level
    /// One line saying what happened and what it cost, without the source.
    public var message: String
    /// The report's numbers and reasons as keys and values (`lost`, `reason`, `status`, ...).
    public var metadata: [String: String]

    /// Creates a report.
    public init(source: String, level: Level, message: String, metadata: [String: String] = [:]) {
        self.source = source
        self.level = level
        self.message = message
        self.metadata = metadata
    }

    /// `source: message`.
    public var description: String {
        "\(source): \(message)"
    }
}
