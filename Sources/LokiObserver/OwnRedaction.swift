import Foundation
import HTTPCore
import HTTPCoreObservation

/// An event's fields as a sink with a redactor of its own writes them: the policy's redaction,
/// then the sink's on top when it differs (a stricter level, more sensitive names), so each
/// output applies its own level to every field it writes.
struct OwnRedaction {
    let event: HTTPEvent
    /// The sink's redactor, or `nil` when the event was redacted by the same one.
    private let redactor: Redactor?

    init(event: HTTPEvent, redactor: Redactor) {
        self.event = event
        self.redactor = redactor == event.redactor ? nil : redactor
    }

    /// The request's URL.
    var url: String {
        redactor.map { $0.redactedURL(string: event.requestURL) } ?? event.requestURL
    }

    /// The URL of the request that got the status: after redirects, the final one.
    var finalURL: String {
        redactor.map { $0.redactedURL(string: event.finalURL) } ?? event.finalURL
    }

    /// The correlation id, masked as its header's value would be.
    var correlationID: String? {
        guard let id = event.correlationID, let redactor, let header = event.correlationHeaderName else { return event.correlationID }
        return redactor.redactedHeaderValue(id, name: header) == Redactor.mask ? Redactor.mask : id
    }

    /// The request's metadata.
    var metadata: [String: String] {
        redactor.map { $0.redactedMetadata(event.metadata) } ?? event.metadata
    }

    /// Free text: an error's description, a message's event name or id.
    func text(_ value: String) -> String {
        redactor.map { $0.redactedText(value) } ?? value
    }

    /// The answer a streamed response carried, read from its captured body (masked by the
    /// policy, and by the sink's redactor when it differs) and masked as one text by both;
    /// `nil` without one.
    var streamAnswer: StreamAnswer? {
        guard event.isStreamed, let response = event.response, let body = response.body else { return nil }
        let contentType = response.headers["Content-Type"]
        let masked = redactor.map { $0.redactedBody(body, contentType: contentType, isTruncated: response.isBodyTruncated) } ?? body
        let redactors = [event.redactor] + (redactor.map { [$0] } ?? [])
        return StreamAnswer(
            body: masked, contentType: contentType, isBodyTruncated: response.isBodyTruncated, redactedBy: redactors,
            readBy: event.interpreters
        )
    }

    /// The notes of what interpreters derived from the exchange, masked by the policy and by
    /// the sink's redactor when it differs.
    var notes: [HTTPExchangeNote] {
        event.attachments.isEmpty ? [] : event.notes(redactedBy: redactor ?? .none)
    }

    /// A stream message's data, under its event name.
    func messageData(_ message: HTTPEvent.StreamMessage) -> String {
        guard let redactor else { return message.data }
        let data = redactor.redactedStreamData(Data(message.data.utf8), isTruncated: message.isTruncated, eventType: message.eventType)
        return String(decoding: data, as: UTF8.self)
    }
}
