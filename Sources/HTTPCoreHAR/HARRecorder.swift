import HTTPCore

/// Records HTTP exchanges as a HAR 1.2 document (being built; see issue 13).
public final class HARRecorder: Sendable {
    /// Creates a recorder.
    public init() {}
}
