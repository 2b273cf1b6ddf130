/// Something an ``HTTPEventDispatcher`` reports about one observer, once per occurrence, so
/// that events lost to a slow observer are never silent yet never flood the output.
///
/// An overflow is reported twice: when the observer's buffer is full and the first event is
/// dropped, and when it ends, with what was dropped. It ends when the dispatcher takes the
/// events that came after the dropped ones to hand them to the observer, which it tells the
/// same count through ``HTTPObserver/handleMissedEvents(_:)`` first; or when the
/// subscription is cancelled before that.
public enum HTTPObserverDiagnostic: Sendable, Hashable, CustomStringConvertible {
    /// The buffer of the observer of type `observer` holds `bufferLimit` events and the
    /// oldest are being dropped.
    case overflowStarted(observer: String, bufferLimit: Int)
    /// The overflow of the observer of type `observer` ended; `missed` is what it dropped.
    case overflowEnded(observer: String, missed: HTTPMissedEvents)

    /// A one-line description naming the observer's type.
    public var description: String {
        switch self {
        case .overflowStarted(let observer, let bufferLimit):
            "\(observer) is behind: its buffer of \(bufferLimit) event\(bufferLimit == 1 ? "" : "s") is full, dropping the oldest until it catches up"
        case .overflowEnded(let observer, let missed):
            "\(observer) caught up: it never saw \(missed)"
        }
    }
}

extension HTTPObserverDiagnostic {
    /// This report as the `HTTPEventDispatcher`'s ``HTTPDiagnostic``: a warning when an
    /// overflow starts, an error with the events lost (`lost`) when it ends; `observer` in
    /// the metadata.
    public var diagnostic: HTTPDiagnostic {
        switch self {
        case .overflowStarted(let observer, let bufferLimit):
            HTTPDiagnostic(
                source: "HTTPEventDispatcher", level: .warning, message: description,
                metadata: ["observer": observer, "buffer_limit": String(bufferLimit)]
            )
        case .overflowEnded(let observer, let missed):
            HTTPDiagnostic(
                source: "HTTPEventDispatcher", level: .error, message: description,
                metadata: ["observer": observer, "lost": String(missed.count)]
            )
        }
    }
}
