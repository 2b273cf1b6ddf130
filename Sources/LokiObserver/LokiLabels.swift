/// Loki stream labels (being built; see issue 13).
public struct LokiLabels: Sendable {
    /// Creates empty labels.
    public init() {}
}
