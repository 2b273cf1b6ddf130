import Foundation
import HTTPCoreConcurrency

/// One WebSocket connection, observed as one exchange: what a WebSocket client tells the
/// observers of the ``HTTPTransportClient`` that made it
/// (``HTTPTransportClient/observeWebSocket(_:)``).
///
/// The connection's events are an exchange's: `created` and `started` when it is made; the
/// handshake's 101 as `received` (``opened(_:)``); each message either way as a `message`
/// event (``sent(_:_:)``, ``received(_:_:)``), an ``HTTPEvent/StreamMessage`` of kind
/// ``HTTPEvent/StreamMessage/Kind/webSocket`` with its ``HTTPEvent/StreamMessage/direction``
/// and ``HTTPEvent/StreamMessage/opcode``; and one terminal event: `succeeded` after a close
/// handshake (``closed(code:reason:by:)``), `failed` or `cancelled` otherwise
/// (``failed(_:response:)``), whose ``HTTPEvent/Exchange/webSocket`` sums up the connection.
///
/// Use it from a WebSocket client of your own:
///
/// ```swift
/// let observation = try client.observeWebSocket(HTTPRequest(url: URL(string: "wss://api.example.com/live")!))
/// // Send observation.request's headers with the handshake, then:
/// observation.opened(HTTPResponse.Head(requestID: observation.request.id, statusCode: 101, headers: [:], url: observation.request.url))
/// observation.sent(.text, Array(#"{"type":"subscribe"}"#.utf8))
/// observation.received(.text, Array(#"{"type":"next"}"#.utf8))
/// observation.closed(code: 1000, reason: "", by: .client)
/// ```
///
/// Messages are redacted under the client's policy when an observer first reads them, as a
/// streamed response's are: a text message's JSON by the JSON body rules (a graphql-ws
/// `connection_init` payload's `authToken` is masked), other text by the text rules, a
/// binary message by the body rules. At most the policy's
/// ``HTTPCorePolicy/StreamMessageCapture/maxCount`` messages per connection are emitted, each
/// with at most ``HTTPCorePolicy/StreamMessageCapture/maxBytes`` of its payload, and none
/// when bodies are omitted; the rest are counted (``HTTPEvent/Exchange/droppedStreamMessageCount``).
/// The observation keeps counts only, so its memory stays the same however long the
/// connection lives, and it copies at most that many bytes of a payload.
///
/// Its methods may be called from any task, a reader's and a writer's at once: observers see
/// the events one at a time, in the order of their indexes. Calls before ``opened(_:)`` (other
/// than the end) and after the end are ignored. When the observation is dropped before an
/// end was reported, the connection ends as cancelled.
public final class WebSocketObservation: Sendable {
    /// The handshake request to send: the one given, with the policy's correlation header
    /// when it names one.
    public let request: HTTPRequest

    private let record: RequestRecord
    private let dispatcher: HTTPEventDispatcher
    private let policy: SharedPolicy
    private let start: Moment
    private let state: Locked<WebSocketObservationState>
    /// Whether messages are emitted as events: not with bodies omitted.
    private let emitsMessages: Bool
    /// The most bytes of a message's payload an event keeps: the policy's
    /// ``HTTPCorePolicy/StreamMessageCapture/maxBytes``. A client that joins fragments needs
    /// to keep no more of a message than this, with its length.
    public let maximumMessageBytes: Int

    init(request: HTTPRequest, record: RequestRecord, dispatcher: HTTPEventDispatcher, policy: SharedPolicy, start: Moment) {
        self.request = request
        self.record = record
        self.dispatcher = dispatcher
        self.policy = policy
        self.start = start
        state = Locked(WebSocketObservationState(maxEmittedMessages: policy.policy.streamMessages.maxCount))
        emitsMessages = policy.policy.bodyCapture != .omitted
        maximumMessageBytes = max(0, policy.policy.streamMessages.maxBytes)
    }

    deinit {
        end(error: .cancelled, response: nil, close: nil)
    }

    /// The server accepted the handshake with `response`, its 101: emits `received`. Messages
    /// are observed from now on.
    ///
    /// - Parameter response: The handshake's response head.
    public func opened(_ response: HTTPResponse.Head) {
        let head = ResponseRecord(response: HTTPResponse(head: response), policy: policy, streamedBodyByteCount: 0)
        let opened = WebSocketObservationState.Opened(head: head, timing: HTTPEvent.AttemptTiming(startedAt: start.date, ended: start.ended()))
        state.withLock { state in
            guard state.open(opened) else { return }
            dispatcher.emit(.responseReceived) { HTTPEvent(
                name: $0, request: record, attempt: 1, response: head, startedAt: start.date, attemptTiming: opened.timing
            ) }
        }
    }

    /// A message of type `opcode` with `payload` was sent: counted, and emitted as a `message`
    /// event within the policy's caps.
    ///
    /// - Parameters:
    ///   - opcode: Its type.
    ///   - payload: Its payload, fragments joined; at most the policy's
    ///     ``HTTPCorePolicy/StreamMessageCapture/maxBytes`` of it are copied.
    @inlinable
    public func sent(_ opcode: HTTPEvent.StreamMessage.Opcode, _ payload: some Collection<UInt8>) {
        report(.sent, opcode, byteCount: payload.count) { Self.copy(payload, upTo: maximumMessageBytes) }
    }

    /// A message of type `opcode` with `payload` was received: counted, and emitted as a
    /// `message` event within the policy's caps.
    ///
    /// - Parameters:
    ///   - opcode: Its type.
    ///   - payload: Its payload, fragments joined; at most the policy's
    ///     ``HTTPCorePolicy/StreamMessageCapture/maxBytes`` of it are copied.
    @inlinable
    public func received(_ opcode: HTTPEvent.StreamMessage.Opcode, _ payload: some Collection<UInt8>) {
        report(.received, opcode, byteCount: payload.count) { Self.copy(payload, upTo: maximumMessageBytes) }
    }

    /// The close handshake ended the connection: emits the first close frame as a message
    /// (sent when this side closed, received when the peer did), then `succeeded`, with the
    /// close in the exchange's ``HTTPEvent/Exchange/webSocket``.
    ///
    /// - Parameters:
    ///   - code: The first close frame's status code; 1005 when it carried none.
    ///   - reason: Its reason; empty when none.
    ///   - initiator: The side that sent it.
    public func closed(code: Int, reason: String, by initiator: HTTPEvent.WebSocketClose.Initiator) {
        let payload = Array(reason.utf8)
        report(initiator == .client ? .sent : .received, .close, byteCount: payload.count) { Self.copy(payload, upTo: maximumMessageBytes) }
        let close = HTTPEvent.WebSocketClose(code: code, reason: policy.policy.redactor.redactedText(reason), initiator: initiator)
        end(error: nil, response: nil, close: close)
    }

    /// The connection failed, or was cancelled (``/HTTPCore/HTTPError/cancelled``), without a
    /// close handshake: emits `failed` (or `cancelled`) with `error`.
    ///
    /// - Parameters:
    ///   - error: What ended it: ``/HTTPCore/HTTPError/Code/connectionLost`` for a connection
    ///     cut without a close frame, ``/HTTPCore/HTTPError/Code/invalidResponse`` for a
    ///     handshake answered with another status than 101, and so on.
    ///   - response: The handshake's answer when the server refused it (a 401, say), which the
    ///     event then carries; ignored once the connection opened, whose 101 it carries.
    public func failed(_ error: HTTPError, response: HTTPResponse.Head? = nil) {
        end(error: error, response: response, close: nil)
    }

    /// At most `maximumBytes` of `payload`, copied: in one pass over contiguous storage (an
    /// array, `Data`, a `ByteBuffer`'s view), else element by element.
    @inlinable
    static func copy(_ payload: some Collection<UInt8>, upTo maximumBytes: Int) -> Data {
        payload.withContiguousStorageIfAvailable { Data(buffer: UnsafeBufferPointer(rebasing: $0.prefix(maximumBytes))) } ?? Data(payload.prefix(maximumBytes))
    }

    /// Counts a message of `byteCount` payload bytes that went `direction`, and emits it, with
    /// what `copy` keeps of its payload, when within the policy's caps: `copy` is called only
    /// then, under the lock, so a message past the cap costs no copy.
    @usableFromInline
    func report(
        _ direction: HTTPEvent.StreamMessage.Direction, _ opcode: HTTPEvent.StreamMessage.Opcode, byteCount: Int, copy: () -> Data
    ) {
        let now = MonotonicClock.nanoseconds()
        state.withLock { state in
            guard let action = state.message(direction, byteCount: byteCount, at: now, emits: emitsMessages), let opened = state.opened else { return }
            let kept = copy()
            let raw = StreamMessageParser.Message(
                kind: .webSocket, eventType: nil, eventID: nil, data: kept, byteCount: byteCount, isTruncated: kept.count < byteCount,
                direction: direction, opcode: opcode
            )
            dispatcher.emit(.responseMessage) { HTTPEvent(
                name: $0, request: record, attempt: 1, response: opened.head, startedAt: start.date, attemptTiming: opened.timing,
                message: StreamMessageRecord(
                    raw: raw, index: action.index, millisecondsSincePrevious: action.millisecondsSincePrevious, policy: policy
                )
            ) }
        }
    }

    /// Emits the terminal event once: `succeeded` with `close`, else `failed` or `cancelled`
    /// with `error`.
    private func end(error: HTTPError?, response: HTTPResponse.Head?, close: HTTPEvent.WebSocketClose?) {
        state.withLock { state in
            guard let action = state.end() else { return }
            let ended = start.ended()
            let counts = action.counts
            let sentRecord = RequestRecord(
                request: request, policy: policy, correlation: record.correlation, isStreamed: true, streamedBodyByteCount: counts.sentBytes,
                earlier: record
            )
            let head = action.opened?.head.response ?? response.map { HTTPResponse(head: $0) }
            let responseRecord = head.map {
                ResponseRecord(response: $0, policy: policy, streamedBodyByteCount: action.opened == nil ? 0 : counts.receivedBytes)
            }
            let summary = HTTPEvent.StreamSummary(
                messageCount: counts.all, droppedMessageCount: counts.all - counts.emitted,
                webSocket: HTTPEvent.WebSocketSummary(
                    sentMessageCount: counts.sentMessages, receivedMessageCount: counts.receivedMessages, sentByteCount: counts.sentBytes,
                    receivedByteCount: counts.receivedBytes, close: close
                )
            )
            let name: HTTPEvent.Name = error == nil ? .requestSucceeded : error?.code == .cancelled ? .requestCancelled : .requestFailed
            dispatcher.emit(name) { HTTPEvent(
                name: $0, request: sentRecord, attempt: 1, response: responseRecord, error: error, startedAt: start.date, ended: ended,
                attemptTiming: action.opened?.timing ?? HTTPEvent.AttemptTiming(startedAt: start.date, ended: ended), streamSummary: summary
            ) }
        }
    }
}
