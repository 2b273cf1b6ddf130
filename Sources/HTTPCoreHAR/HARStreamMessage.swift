import Foundation
import HTTPCore
import HTTPCoreObservation

/// One server-sent event or JSON line of a streamed response, or one message of a WebSocket
/// connection either way, as recorded from its ``/HTTPCoreObservation/HTTPEvent/Name/responseMessage``
/// event: already redacted and cut by the client's policy.
struct HARStreamMessage: Sendable {
    let attempt: Int
    /// When the message arrived, or was sent: its event's timestamp.
    let receivedAt: Date
    let message: HTTPEvent.StreamMessage

    init(event: HTTPEvent, message: HTTPEvent.StreamMessage) {
        attempt = event.attempt
        receivedAt = event.timestamp
        self.message = message
    }
}
