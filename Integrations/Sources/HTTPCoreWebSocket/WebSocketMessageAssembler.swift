import HTTPCore
import HTTPCoreObservation
import NIOCore
import NIOWebSocket

/// Joins the frames of one direction into whole messages: a data frame with `fin` unset starts
/// a message that continuation frames extend; control frames are whole messages of their own
/// and may come between fragments (RFC 6455, section 5.4).
///
/// A message in fragments keeps at most `keptBytes` of its payload, the most an event keeps
/// (``HTTPCoreObservation/WebSocketObservation/maximumMessageBytes``), with its whole length:
/// a message of any length, in any number of fragments, costs that much.
struct WebSocketMessageAssembler {
    /// One whole message: its opcode (that of its first frame) and its payload.
    struct Message {
        var opcode: HTTPEvent.StreamMessage.Opcode
        var payload: Payload
    }

    /// A message's payload as the assembler kept it: its first bytes and its whole length.
    /// Past what was kept it reads as zeros, which an observation never reads: it copies at
    /// most its `maximumMessageBytes`, and the assembler keeps that many.
    struct Payload: RandomAccessCollection {
        let kept: ByteBufferView
        let count: Int

        init(kept: ByteBuffer, count: Int) {
            self.kept = kept.readableBytesView
            self.count = count
        }

        var startIndex: Int { 0 }
        var endIndex: Int { count }

        subscript(position: Int) -> UInt8 {
            position < kept.count ? kept[kept.startIndex + position] : 0
        }

        func withContiguousStorageIfAvailable<R>(_ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R? {
            guard kept.count == count else { return nil }
            return try kept.withContiguousStorageIfAvailable(body)
        }
    }

    private let keptBytes: Int
    private var pending: (opcode: HTTPEvent.StreamMessage.Opcode, kept: ByteBuffer, count: Int)?

    init(keptBytes: Int) {
        self.keptBytes = keptBytes
    }

    /// Takes one frame and returns the message it completes, or nil while a message is still
    /// incomplete or for a frame that is not a message (a close, an unknown opcode).
    mutating func append(_ frame: WebSocketFrame) -> Message? {
        switch frame.opcode {
        case .ping: return whole(.ping, frame)
        case .pong: return whole(.pong, frame)
        case .text, .binary:
            let opcode: HTTPEvent.StreamMessage.Opcode = frame.opcode == .text ? .text : .binary
            guard !frame.fin else { return whole(opcode, frame) }
            let data = frame.unmaskedData
            pending = (opcode, data.getSlice(at: data.readerIndex, length: min(keptBytes, data.readableBytes)) ?? data, data.readableBytes)
            return nil
        case .continuation:
            // Taken out first, so the kept buffer is not shared and grows in place.
            guard var message = pending else { return nil }
            pending = nil
            var data = frame.unmaskedData
            message.count += data.readableBytes
            let room = keptBytes - message.kept.readableBytes
            if room > 0, let head = data.readSlice(length: min(room, data.readableBytes)) {
                var head = head
                message.kept.writeBuffer(&head)
            }
            guard frame.fin else {
                pending = message
                return nil
            }
            return Message(opcode: message.opcode, payload: Payload(kept: message.kept, count: message.count))
        default:
            return nil
        }
    }

    /// A message in one frame, its payload as the frame holds it.
    private func whole(_ opcode: HTTPEvent.StreamMessage.Opcode, _ frame: WebSocketFrame) -> Message {
        let data = frame.unmaskedData
        return Message(opcode: opcode, payload: Payload(kept: data, count: data.readableBytes))
    }
}
