import Foundation
import HTTPCore
import ServiceContextModule
import Vapor

/// Routes of a Vapor service that call an upstream API through an HTTPCore client, as
/// `HummingbirdRecipe.UpstreamRoutes` does for Hummingbird: `GET /items/{id}` answers with the
/// upstream's JSON, and `GET /export` proxies the upstream's stream, passing its status, headers
/// and length through while the body is still arriving.
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
                headers: Self.passedOn(response.headers),
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
            let stream = Response.Body(
                asyncStream: { writer in
                    do {
                        for try await chunk in body { try await writer.writeBuffer(ByteBuffer(bytes: chunk)) }
                        try await writer.write(.end)
                    } catch {
                        try await writer.write(.error(error))
                    }
                },
                count: count
            )
            return Response(status: HTTPResponseStatus(statusCode: head.statusCode), headers: Self.passedOn(head.headers), body: stream)
        }
    }

    /// The upstream request for `path`, carrying the incoming request's id.
    private func upstreamRequest(_ path: String, for request: Request, timeout: TimeInterval = 30) -> HTTPRequest {
        HTTPRequest(url: baseURL.appendingPathComponent(path), timeout: timeout, metadata: ["request_id": request.id])
    }

    /// The upstream's header fields a proxy passes on: all but those of the connection and the
    /// framing, which Vapor writes itself.
    static func passedOn(_ headers: HTTPHeaders) -> Vapor.HTTPHeaders {
        var passed = Vapor.HTTPHeaders()
        for field in headers where !["connection", "transfer-encoding", "content-length"].contains(field.name.lowercased()) {
            passed.add(name: field.name, value: field.value)
        }
        return passed
    }
}
