import HTTPCore
import HTTPCoreObservation

/// A log accepted into the buffer: either captured already, or the event of an exchange's
/// end, a retried attempt or a message, whose (possibly costly) redacted view is read only
/// when the log is uploaded.
enum PendingLog: Sendable {
    indirect case entry(LogEntry)
    case event(HTTPEvent)
    /// A WebSocket connection's terminal event, with the messages its row lists.
    indirect case webSocketEnd(HTTPEvent, WebSocketTranscript?)

    func entry(maxBodyBytes: Int, maxMessageLogs: Int) -> LogEntry {
        switch self {
        case .entry(let entry): entry
        case .event(let event): LogEntry(accepted: event, maxBodyBytes: maxBodyBytes, maxMessageLogs: maxMessageLogs)
        case .webSocketEnd(let event, let transcript): LogEntry(webSocketEnd: event, transcript: transcript, maxBodyBytes: maxBodyBytes)
        }
    }
}
