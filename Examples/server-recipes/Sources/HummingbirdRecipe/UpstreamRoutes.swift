import Foundation
import HTTPCore
import HTTPCoreHTTPTypes
import HTTPTypes
import Hummingbird

/// Routes of a Hummingbird service that call an upstream API through an HTTPCore client:
/// `GET /items/{id}` answers with the upstream's JSON, and `GET /export` proxies the upstream's
/// stream, passing its status, headers and length through while the body is still arriving.
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
                headers: Self.passedOn(response.headers),
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
            return Response(
                status: .init(code: head.statusCode),
                headers: Self.passedOn(head.headers),
                body: ResponseBody(contentLength: length) { writer in
                    for try await chunk in body { try await writer.write(ByteBuffer(bytes: chunk)) }
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
    static func passedOn(_ headers: HTTPHeaders) -> HTTPFields {
        var fields = (try? HTTPFields(headers)) ?? HTTPFields()
        for name in [HTTPField.Name.connection, .transferEncoding, .contentLength] { fields[name] = nil }
        return fields
    }
}
