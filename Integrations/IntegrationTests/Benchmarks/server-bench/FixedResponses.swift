import NIOCore
import NIOHTTP1

/// The server's answers, built once: for each size a response head with its `Content-Length`
/// and a body of that many bytes, looked up by the request path (`/64`).
struct FixedResponses: Sendable {
    /// The head and body answering `GET /SIZE`.
    struct Response: Sendable {
        /// `200 OK`, `Content-Type` and `Content-Length`, without the version (the request's).
        let headers: HTTPHeaders
        /// The body; writing it shares its storage, never copies it.
        let body: ByteBuffer
    }

    /// The responses by body size.
    private let bySize: [Int: Response]

    /// Builds the responses for `sizes`.
    init(sizes: [Int]) {
        var bySize: [Int: Response] = [:]
        for size in sizes {
            let headers: HTTPHeaders = ["Content-Type": "application/octet-stream", "Content-Length": "\(size)"]
            bySize[size] = Response(headers: headers, body: ByteBuffer(repeating: UInt8(ascii: "x"), count: size))
        }
        self.bySize = bySize
    }

    /// The response for a request path such as `/64`, `nil` for any other path.
    func response(forPath path: String) -> Response? {
        guard path.first == "/", let size = Int(path.dropFirst()) else { return nil }
        return bySize[size]
    }
}
