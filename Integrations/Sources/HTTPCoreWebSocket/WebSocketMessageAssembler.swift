import HTTPCore
import HTTPCoreObservation
import NIOCore
import NIOWebSocket

/// Joins the frames of one direction into whole messages: a data frame with `fin` unset starts
/// a message that continuation frames extend; control frames are whole messages of their own
/// and may come between fragments (RFC 6455, section 5.4).
struct WebSocketMessageAssembler {
    /// One whole message: its opcode (that of its first frame) and its joined payload.
    struct Message {
        var opcode: HTTPEvent.StreamMessage.Opcode
        var payload: ByteBuffer
    }

    private var pending: Message?

    /// Takes one frame and returns the message it completes, or nil while a message is still
    /// incomplete or for a frame that is not a message (a close, an unknown opcode).
    mutating func append(_ frame: WebSocketFrame) -> Message? {
        switch frame.opcode {
        case .ping: return Message(opcode: .ping, payload: frame.unmaskedData)
        case .pong: return Message(opcode: .pong, payload: frame.unmaskedData)
        case .text, .binary:
            let message = Message(opcode: frame.opcode == .text ? .text : .binary, payload: frame.unmaskedData)
            guard !frame.fin else { return message }
            pending = message
            return nil
        case .continuation:
            // Taken out first, so the buffer is not shared and grows in place.
            guard var message = pending else { return nil }
            pending = nil
            var data = frame.unmaskedData
            message.payload.writeBuffer(&data)
            guard frame.fin else {
                pending = message
                return nil
            }
            return message
        default:
            return nil
        }
    }
}
