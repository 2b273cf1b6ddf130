import Foundation
import HTTPCore
import HTTPCoreObservation
import HTTPCoreGenAI
import HTTPCoreTesting

/// One recorded-shape LLM exchange: where it went, what it asked, and what came back (a
/// body, or a stream whose messages arrive at known times). Shared by the tests of the
/// recognition and of every sink that shows an LLM call.
public struct GenAIFixture: Sendable {
    public var url: String
    public var requestBody: String
    /// A whole body, or a stream of `contentType` (`text/event-stream`, NDJSON).
    public var responseBody: String
    public var contentType: String
    public var responseHeaders: HTTPHeaders
    /// When the first message arrives, in seconds after the request; each next one comes
    /// ``messageSpacing`` later. Powers of two keep the expected times exact.
    public var firstMessageAt: Double
    public var messageSpacing: Double

    /// A fixture of a call to `url` that sent `requestBody` and got `responseBody`.
    public init(
        url: String, requestBody: String, responseBody: String, contentType: String = "application/json",
        responseHeaders: HTTPHeaders = [:], firstMessageAt: Double = 0.5, messageSpacing: Double = 0.125
    ) {
        self.url = url
        self.requestBody = requestBody
        self.responseBody = responseBody
        self.contentType = contentType
        self.responseHeaders = responseHeaders
        self.firstMessageAt = firstMessageAt
        self.messageSpacing = messageSpacing
    }

    /// Whether the response is a stream rather than one JSON body.
    public var isStream: Bool { contentType != "application/json" }

    /// The fixture's request as a client sends it: a `POST` of its JSON body.
    public var request: HTTPRequest {
        HTTPRequest(method: .post, url: URL(string: url)!, headers: ["Content-Type": "application/json"], body: Data(requestBody.utf8))
    }

    /// The stream's server-sent events as written on the wire, each with its blank line.
    public var events: [String] {
        responseBody.components(separatedBy: "\n\n").filter { !$0.isEmpty }.map { $0 + "\n\n" }
    }

    /// Writes the stream to `writer`, one server-sent event a chunk, and finishes it.
    public func stream(to writer: HTTPBody.Writer) async throws {
        for event in events { try await writer.write(HTTPBody.ByteChunk(event.utf8)) }
        writer.finish()
    }

    /// Sends the fixture's request through an `HTTPTransportClient` whose transport answers
    /// with the fixture (streamed chunk by chunk when it is a stream, the whole body
    /// otherwise), with `dispatcher` and `policy` (with the GenAI interpreter added when it has
    /// no interpreter), and reads the answer to its end. Returns the request sent, whose `id`
    /// the events carry.
    @discardableResult
    public func send(through dispatcher: HTTPEventDispatcher, policy: HTTPCorePolicy) async throws -> HTTPRequest {
        let request = request
        let policy = policy.interpreters.isEmpty ? policy.interpreting(.genAI) : policy
        if isStream {
            let transport = StreamingMockTransport(headers: ["Content-Type": contentType])
            let client = HTTPTransportClient(transport: transport, dispatcher: dispatcher, policy: policy)
            let read = Task { try await client.send(request, body: nil) { _, body in try await body.collect(upTo: 1 << 20).count } }
            try await stream(to: try await transport.nextWriter())
            _ = try await read.value
        } else {
            let reply = MockTransport.Reply.status(200, body: Data(responseBody.utf8), headers: ["Content-Type": contentType])
            _ = try await HTTPTransportClient(transport: MockTransport(default: reply), dispatcher: dispatcher, policy: policy).send(request)
        }
        return request
    }

    /// `text` with each measured time (`45 µs`, `12.3 ms`, `1.2 s`) shown as `<t>`, so a
    /// sink's output through a real exchange can be compared whole.
    public static func timesHidden(in text: String) -> String {
        text.replacingOccurrences(of: #"\b\d+(\.\d+)? (µs|ms|s)\b"#, with: "<t>", options: .regularExpression)
    }
}
