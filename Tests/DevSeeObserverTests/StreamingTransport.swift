import Foundation
import HTTPCore

/// A transport that answers every request with `frames` as a streamed body (one chunk per
/// frame, through `HTTPBody.makeStream`), so an exchange made with the streaming `send` sees
/// them arrive one by one; the buffered `perform` answers them whole.
struct StreamingTransport: HTTPTransport {
    var contentType = "text/event-stream"
    let frames: [String]

    /// Three server-sent events of an LLM-like answer, the second with a secret in its JSON.
    static let chat = StreamingTransport(frames: [
        "event: token\ndata: {\"t\":\"Hel\"}\n\n",
        "event: token\nid: 2\ndata: {\"t\":\"lo\",\"api_key\":\"sk-live-123\"}\n\n",
        ": keep-alive\n\ndata: [DONE]\n\n",
    ])

    var byteCount: Int { frames.reduce(0) { $0 + $1.utf8.count } }

    func perform(_ request: HTTPRequest) async throws -> HTTPResponse {
        HTTPResponse(
            requestID: request.id, statusCode: 200, headers: ["Content-Type": contentType], body: Data(frames.joined().utf8), url: request.url
        )
    }

    func perform(_ request: HTTPRequest, body: HTTPBody?) async throws -> (HTTPResponse, HTTPBody) {
        let (stream, writer) = HTTPBody.makeStream()
        let frames = frames
        Task {
            for frame in frames { try await writer.write(ArraySlice(frame.utf8)) }
            writer.finish()
        }
        return (HTTPResponse(requestID: request.id, statusCode: 200, headers: ["Content-Type": contentType], url: request.url), stream)
    }

    /// Sends `request` through `client` with the streaming `send` and reads the body to its end.
    static func readAll(_ request: HTTPRequest, with client: some HTTPClient) async throws -> Int {
        try await client.send(request, body: nil) { _, body in
            var count = 0
            for try await chunk in body { count += chunk.count }
            return count
        }
    }
}
