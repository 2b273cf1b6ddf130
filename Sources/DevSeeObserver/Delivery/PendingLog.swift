import HTTPCore

/// A log accepted into the buffer: either captured already, or a terminal event whose
/// (possibly costly) redacted view is read only when the log is uploaded.
enum PendingLog: Sendable {
    indirect case entry(LogEntry)
    case event(HTTPEvent)

    func entry(maxBodyBytes: Int, maxMessageLogs: Int) -> LogEntry {
        switch self {
        case .entry(let entry): entry
        case .event(let event): LogEntry(event: event, maxBodyBytes: maxBodyBytes, maxMessageLogs: maxMessageLogs)
        }
    }
}
