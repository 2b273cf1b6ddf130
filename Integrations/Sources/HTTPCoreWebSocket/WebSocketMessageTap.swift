import HTTPCore
import HTTPCoreObservation
import NIOConcurrencyHelpers
import NIOCore
import NIOWebSocket
import WSClient

/// A swift-websocket extension that reports every message passing through it to a
/// ``WebSocketObservation``, one call per message with its fragments joined.
///
/// Placed first in the extension list (`HTTPTransportClient.webSocket(_:configuration:eventLoopGroup:logger:handler:)`
/// does that), it sees every outbound frame before compression and every inbound data frame
/// after decompression. swift-websocket handles inbound ping, pong and close frames before its
/// extensions, so those are not seen here: an inbound ping shows as the pong sent back, and the
/// peer's close comes from the value `connect` returns.
struct WebSocketMessageTap: WebSocketExtension {
    /// The close frame this client sent first, if it sent one.
    struct SentClose: Sendable, Equatable {
        var code: Int
        var reason: String

        /// Whether it could be swift-websocket's answer to the peer's close: 1000 or 1002,
        /// without a reason.
        var couldAnswerAClose: Bool {
            reason.isEmpty && (code == 1000 || code == 1002)
        }
    }

    private struct State {
        var outbound: WebSocketMessageAssembler
        var inbound: WebSocketMessageAssembler
        var sentClose: SentClose?
    }

    let name = "httpcore-observation"
    private let observation: WebSocketObservation
    // Guards the two assemblers and the first close sent: frames either way arrive on
    // different tasks (the writer's and the reader's).
    private let state: NIOLockedValueBox<State>

    init(observation: WebSocketObservation) {
        self.observation = observation
        let keptBytes = observation.maximumMessageBytes
        state = NIOLockedValueBox(State(outbound: .init(keptBytes: keptBytes), inbound: .init(keptBytes: keptBytes)))
    }

    /// The first close frame this client sent, with its code and reason.
    var sentClose: SentClose? {
        state.withLockedValue { $0.sentClose }
    }

    func processReceivedFrame(_ frame: WebSocketFrame, context: WebSocketExtensionContext) async throws -> WebSocketFrame {
        if let message = state.withLockedValue({ $0.inbound.append(frame) }) {
            observation.received(message.opcode, message.payload)
        }
        return frame
    }

    func processFrameToSend(_ frame: WebSocketFrame, context: WebSocketExtensionContext) async throws -> WebSocketFrame {
        if frame.opcode == .connectionClose {
            state.withLockedValue { state in
                guard state.sentClose == nil else { return }
                var data = frame.unmaskedData
                let code = data.readInteger(as: UInt16.self).map(Int.init) ?? 1005
                state.sentClose = SentClose(code: code, reason: data.readString(length: data.readableBytes) ?? "")
            }
        } else if let message = state.withLockedValue({ $0.outbound.append(frame) }) {
            observation.sent(message.opcode, message.payload)
        }
        return frame
    }

    func shutdown() async {}
}
