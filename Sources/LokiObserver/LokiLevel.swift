/// The severity of a log line, sent as the stream's `level` label (which Grafana colors by).
public enum LokiLevel: String, Sendable, Hashable, CaseIterable {
    /// Fine-grained tracing.
    case trace
    /// Debugging detail.
    case debug
    /// Normal operation.
    case info
    /// Normal but significant.
    case notice
    /// Something unexpected that the app handled.
    case warning
    /// A failure.
    case error
    /// A failure that needs attention now.
    case critical
}
