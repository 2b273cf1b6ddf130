import Foundation
import HTTPCore
import HTTPCoreObservation

/// The text an LLM answer adds, one delta at a time as it arrives, whatever the provider's
/// shape: OpenAI chat completions and Responses, Anthropic Messages, Gemini (`alt=sse`),
/// Hugging Face TGI and Ollama, streamed or not.
///
/// ```swift
/// let (head, body) = try await client.send(request, body: nil)
/// var answer = ""
/// for try await delta in GenAITextDeltas(head: head, body: body) {
///     answer += delta
///     print(delta, terminator: "")
/// }
/// ```
///
/// How the answer is read:
/// - **The framing comes from the response's `Content-Type`**: `text/event-stream` is read as
///   server-sent events (`body.serverSentEvents(maximumEventBytes:)`),
///   NDJSON and JSON Lines as JSON lines (`body.jsonLines(maximumLineBytes:)`),
///   and a JSON body (or one without a type) is read whole, up to `maximumMessageBytes`, its
///   text one delta.
/// - **The provider comes from each message's own shape**, read by the same reader that gives
///   observers the stream's answer (``GenAIRecognizer/streamAnswerText(eventType:data:)``): the
///   request's URL plays no part, so a gateway or a local server that answers in one of these
///   shapes needs no ``GenAIRoute``. Messages that add no text (a role-only delta, `ping`, usage,
///   `[DONE]`, data that is not JSON) are skipped; tool-call arguments and reasoning are not
///   answer text and are skipped too. With several choices (`n` above 1) their deltas come
///   interleaved, as they arrive.
/// - **Errors are thrown**: an error event inside the stream, or a response whose status is
///   not 2xx, throws ``/HTTPCore/HTTPError`` `HTTPError.Code.providerError` naming
///   the provider's error code; what the body throws (a cut transfer's `connection_lost`) and
///   a message over the limit (``/HTTPCore/HTTPError/Code/responseTooLarge``) are thrown as
///   the body's sequences throw them. An unfinished last server-sent event is discarded.
///
/// It pulls the body as the deltas are asked for, with no task or buffer of its own. Bedrock's
/// binary `converse-stream` framing is not read: such a body throws.
public struct GenAITextDeltas: AsyncSequence, Sendable {
    /// A piece of the answer's text, never empty.
    public typealias Element = String

    private let statusCode: Int
    private let contentType: String?
    private let body: HTTPBody
    private let maximumMessageBytes: Int

    /// The text deltas of the answer whose head is `head` and whose body is `body`.
    ///
    /// - Parameters:
    ///   - head: The response's head: its status and `Content-Type` decide how the body is
    ///     read.
    ///   - body: The response's body, not read yet; the deltas read it.
    ///   - maximumMessageBytes: The most bytes of one server-sent event's data, one JSON line,
    ///     or a whole JSON body: 1 MiB by default.
    public init(head: HTTPResponse.Head, body: HTTPBody, maximumMessageBytes: Int = 1 << 20) {
        statusCode = head.statusCode
        contentType = head.headers["Content-Type"]
        self.body = body
        self.maximumMessageBytes = Swift.max(0, maximumMessageBytes)
    }

    /// Reads the deltas, pulling the body's next chunk only when no delta is ready.
    public struct Iterator: AsyncIteratorProtocol {
        private enum Source {
            case events(HTTPBody.Messages<HTTPBody.ServerSentEvent>.Iterator)
            case lines(HTTPBody.Messages<Data>.Iterator)
            /// A body read whole: a JSON answer, or the body of an error status.
            case whole(HTTPBody, failedWithStatus: Int?)
            case finished
        }

        private var source: Source
        private let contentType: String?
        private let maximumMessageBytes: Int

        fileprivate init(_ deltas: GenAITextDeltas) {
            contentType = deltas.contentType
            maximumMessageBytes = deltas.maximumMessageBytes
            let limit = deltas.maximumMessageBytes
            if !(200..<300).contains(deltas.statusCode) {
                source = .whole(deltas.body, failedWithStatus: deltas.statusCode)
            } else {
                switch HTTPEvent.StreamMessage.Kind(contentType: deltas.contentType) {
                case .serverSentEvent: source = .events(deltas.body.serverSentEvents(maximumEventBytes: limit).makeAsyncIterator())
                case .jsonLine: source = .lines(deltas.body.jsonLines(maximumLineBytes: limit).makeAsyncIterator())
                // No content type names a WebSocket's framing.
                case nil, .webSocket: source = .whole(deltas.body, failedWithStatus: nil)
                }
            }
        }

        /// The next piece of the answer's text, or `nil` once the answer ended.
        ///
        /// - Returns: A delta, never empty, or `nil` at the end.
        /// - Throws: ``/HTTPCore/HTTPError`` `HTTPError.Code.providerError` for an
        ///   error event or an error status; ``/HTTPCore/HTTPError/Code/responseTooLarge`` for
        ///   a message over the limit; what the body throws.
        public mutating func next() async throws -> String? {
            while true {
                switch source {
                case .events(var events):
                    source = .finished
                    guard let event = try await events.next() else { return nil }
                    source = .events(events)
                    if let text = try Self.text(of: LLMPayload.read(eventType: event.event, data: Data(event.data.utf8))) { return text }
                case .lines(var lines):
                    source = .finished
                    guard let line = try await lines.next() else { return nil }
                    source = .lines(lines)
                    if let text = try Self.text(of: LLMPayload.read(eventType: nil, data: line)) { return text }
                case .whole(let body, let status):
                    source = .finished
                    return try await wholeText(of: body, failedWithStatus: status)
                case .finished:
                    return nil
                }
            }
        }

        /// The text a message adds; `nil` for one that adds none.
        ///
        /// - Throws: `HTTPError.Code.providerError` for an error payload.
        private static func text(of payload: LLMPayload?) throws -> String? {
            guard let payload else { return nil }
            if let code = payload.errorCode {
                throw HTTPError.transport(.providerError, message: "the LLM's stream carried \(Self.describe(code))")
            }
            return payload.text.isEmpty ? nil : payload.text
        }

        /// The text of a body read whole, or the error an error status's body names.
        private func wholeText(of body: HTTPBody, failedWithStatus status: Int?) async throws -> String? {
            guard status != nil || GenAIResponseTap.keepsBody(ofType: contentType) else {
                throw HTTPError.transport(
                    .other, message: "GenAITextDeltas reads server-sent events, JSON lines or a JSON body, not \(contentType ?? "")"
                )
            }
            // Collected here rather than with `collect(upTo:)`, so that only this limit, not a
            // transport's, is named as the answer's; an error status's long body is read as none.
            var data = Data()
            for try await chunk in body {
                guard chunk.count <= maximumMessageBytes - data.count else {
                    guard status != nil else {
                        throw HTTPError.transport(
                            .responseTooLarge,
                            message: "the LLM's answer is over \(maximumMessageBytes) bytes, the maximumMessageBytes given to GenAITextDeltas"
                        )
                    }
                    data = Data()
                    break
                }
                data.append(contentsOf: chunk)
            }
            let payload = JSONObject(data: data).flatMap { LLMPayload.read($0) }
            if let status {
                let error = payload?.errorCode.map(Self.describe) ?? "no error the package reads"
                throw HTTPError.transport(.providerError, message: "the LLM answered \(status) with \(error)")
            }
            return try Self.text(of: payload)
        }

        /// A provider's error code as a message says it.
        private static func describe(_ code: String) -> String {
            code.isEmpty ? "an error without a code" : "the error \(code)"
        }
    }

    /// Starts reading the body.
    ///
    /// - Returns: An iterator of the deltas.
    public func makeAsyncIterator() -> Iterator {
        Iterator(self)
    }
}
