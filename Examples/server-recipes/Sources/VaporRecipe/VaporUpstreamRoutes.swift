import Foundation
import HTTPCore
import HTTPCoreAsyncHTTPClient
import HTTPCoreHTTPTypes
import HTTPTypes
import ServiceContextModule
import Vapor

/// Routes of a Vapor service that call an upstream API through an HTTPCore client, as
/// `HummingbirdRecipe.UpstreamRoutes` does for Hummingbird: `GET /items/{id}` answers with the
/// upstream's JSON, and `GET /export` proxies the upstream's stream, passing its status, headers
/// and length through while the body is still arriving.
///
/// The proxied body goes from the upstream's connection to Vapor's body writer without a copy:
/// `body.byteBuffers` yields the `ByteBuffer`s AsyncHTTPClient delivered, which the writer
/// writes as they are, while HTTPCore's observers still see every byte. An upstream header
/// that HTTP does not allow is never dropped: the route answers 502 Bad Gateway, naming it
/// (``passedOn(_:)``).
///
/// Vapor's `TracingMiddleware` keeps the incoming request's span context on
/// `request.serviceContext`, not in the task the route runs in, so each upstream call is made
/// under it (`ServiceContext.withValue`); HTTPCore's `TracingMiddleware` then makes the
/// upstream span its child instead of a root. The incoming request's id travels in the
/// upstream request's metadata, to the upstream exchange's log line as `request_id`.
public struct VaporUpstreamRoutes<Client: HTTPCore.HTTPClient>: Sendable {
    /// The client upstream calls go through.
    public let upstream: Client
    /// Where the upstream API is.
    public let baseURL: URL

    /// Routes calling `upstream` at `baseURL`.
    public init(upstream: Client, baseURL: URL) {
        self.upstream = upstream
        self.baseURL = baseURL
    }

    /// Registers the routes on `routes`.
    public func register(on routes: any RoutesBuilder) {
        routes.get("items", ":id") { request async throws -> Response in
            let id = try request.parameters.require("id")
            let response = try await ServiceContext.withValue(request.serviceContext) {
                try await upstream.send(upstreamRequest("items/\(id)", for: request))
            }
            return Response(
                status: HTTPResponseStatus(statusCode: response.statusCode),
                headers: try Self.passedOn(response.headers),
                body: Response.Body(data: response.body)
            )
        }
        routes.get("export") { request async throws -> Response in
            // Returns at the upstream's head; Vapor's response writer reads the body.
            let (head, body) = try await ServiceContext.withValue(request.serviceContext) {
                try await upstream.send(upstreamRequest("export", for: request, timeout: 300), body: nil)
            }
            let count: Int =
                switch body.length {
                case .known(let length): Int(length)
                case .unknown: -1
                }
            // Before the body: a header that cannot be passed on fails the response, and the
            // upstream body, dropped unread, ends its exchange as cancelled.
            let headers = try Self.passedOn(head.headers)
            let stream = Response.Body(
                asyncStream: { writer in
                    do {
                        // AHC's buffers, written as they came: no copy per chunk.
                        for try await buffer in body.byteBuffers { try await writer.writeBuffer(buffer) }
                        try await writer.write(.end)
                    } catch {
                        try await writer.write(.error(error))
                    }
                },
                count: count
            )
            return Response(status: HTTPResponseStatus(statusCode: head.statusCode), headers: headers, body: stream)
        }
    }

    /// The upstream request for `path`, carrying the incoming request's id.
    private func upstreamRequest(_ path: String, for request: Request, timeout: TimeInterval = 30) -> HTTPRequest {
        HTTPRequest(url: baseURL.appendingPathComponent(path), timeout: timeout, metadata: ["request_id": request.id])
    }

    /// The upstream's header fields a proxy passes on: all but those of the connection and the
    /// framing, which Vapor writes itself.
    ///
    /// Vapor's headers take any text, so each field is first checked by the conversion to
    /// swift-http-types' fields (`HTTPCoreHTTPTypes`), whose rules are HTTP's: a field that is not
    /// valid HTTP (a name that is not a token, a value with a control byte) is neither passed
    /// on nor dropped, the response fails as a 502 Bad Gateway whose reason names the field
    /// and the rule it breaks.
    static func passedOn(_ headers: HTTPHeaders) throws -> Vapor.HTTPHeaders {
        let fields: HTTPFields
        do {
            fields = try HTTPFields(headers)
        } catch {
            throw Abort(.badGateway, reason: "the upstream's response cannot be passed on: \(error)")
        }
        var passed = Vapor.HTTPHeaders()
        for field in fields where ![.connection, .transferEncoding, .contentLength].contains(field.name) {
            passed.add(name: field.name.rawName, value: field.value)
        }
        return passed
    }
}
