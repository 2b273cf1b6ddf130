import Foundation
import HTTPCore
import HTTPCoreAsyncHTTPClient
import HTTPCoreHTTPTypes
import HTTPTypes
import Hummingbird

/// Routes of a Hummingbird service that call an upstream API through an HTTPCore client:
/// `GET /items/{id}` answers with the upstream's JSON, and `GET /export` proxies the upstream's
/// stream, passing its status, headers and length through while the body is still arriving.
///
/// The proxied body goes from the upstream's connection to Hummingbird's response writer
/// without a copy: `body.byteBuffers` yields the `ByteBuffer`s AsyncHTTPClient delivered, which
/// the writer writes as they are, while HTTPCore's observers still see every byte. An upstream
/// header that HTTP does not allow is never dropped: the route answers 502 Bad Gateway, naming
/// it (``passedOn(_:)``).
///
/// The upstream exchange runs in the route's task, under the `ServiceContext` that
/// Hummingbird's `TracingMiddleware` set, so HTTPCore's `TracingMiddleware` makes the upstream
/// span its child. The incoming request's id travels in the upstream request's metadata, so
/// the upstream exchange's log line (`LoggingObserver`) carries it as `request_id`.
public struct UpstreamRoutes<Client: HTTPClient>: Sendable {
    /// The client upstream calls go through.
    public let upstream: Client
    /// Where the upstream API is.
    public let baseURL: URL

    /// Routes calling `upstream` at `baseURL`.
    public init(upstream: Client, baseURL: URL) {
        self.upstream = upstream
        self.baseURL = baseURL
    }

    /// Adds the routes to `router`.
    public func add<Context: RequestContext>(to router: Router<Context>) {
        router.get("items/:id") { _, context -> Response in
            let id = try context.parameters.require("id")
            let response = try await upstream.send(upstreamRequest("items/\(id)", context: context))
            return Response(
                status: .init(code: response.statusCode),
                headers: try Self.passedOn(response.headers),
                body: ResponseBody(byteBuffer: ByteBuffer(bytes: response.body))
            )
        }
        router.get("export") { _, context -> Response in
            // Returns at the upstream's head; the body is read by Hummingbird's response writer.
            let (head, body) = try await upstream.send(upstreamRequest("export", context: context, timeout: 300), body: nil)
            let length: Int? =
                switch body.length {
                case .known(let count): Int(count)
                case .unknown: nil
                }
            // Before the body: a header that cannot be passed on fails the response, and the
            // upstream body, dropped unread, ends its exchange as cancelled.
            let headers = try Self.passedOn(head.headers)
            return Response(
                status: .init(code: head.statusCode),
                headers: headers,
                body: ResponseBody(contentLength: length) { writer in
                    // AHC's buffers, written as they came: no copy per chunk.
                    for try await buffer in body.byteBuffers { try await writer.write(buffer) }
                    try await writer.finish(nil)
                }
            )
        }
    }

    /// The upstream request for `path`, carrying the incoming request's id.
    private func upstreamRequest(_ path: String, context: some RequestContext, timeout: TimeInterval = 30) -> HTTPRequest {
        HTTPRequest(url: baseURL.appendingPathComponent(path), timeout: timeout, metadata: ["request_id": context.id])
    }

    /// The upstream's header fields a proxy passes on: all but those of the connection, which
    /// Hummingbird writes itself.
    ///
    /// A field that is not valid HTTP (a name that is not a token, a value with a control
    /// byte) is not passed on, and not dropped either: the response fails as a 502 Bad Gateway
    /// whose message names the field and the rule it breaks, so the upstream's fault is seen
    /// where it is, not as a response with headers missing.
    static func passedOn(_ headers: HTTPHeaders) throws -> HTTPFields {
        var fields: HTTPFields
        do {
            fields = try HTTPFields(headers)
        } catch {
            throw Hummingbird.HTTPError(.badGateway, message: "the upstream's response cannot be passed on: \(error)")
        }
        for name in [HTTPField.Name.connection, .transferEncoding, .contentLength] { fields[name] = nil }
        return fields
    }
}
