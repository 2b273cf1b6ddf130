import Foundation
import HTTPCore
import HTTPCoreObservation
import HTTPCoreHTTPTypes
import HTTPTypes
import OpenAPIRuntime

/// A swift-openapi-runtime `ClientTransport` over any HTTPCore ``/HTTPCore/HTTPClient``: a client made by
/// swift-openapi-generator then sends through HTTPCore, with its ids, events, redaction,
/// middlewares, and every observer (dev-see, Loki, HAR, metrics, tracing), without code.
///
/// ```swift
/// let http = URLSessionClient(middlewares: [RetryMiddleware()])   // or HTTPTransportClient(asyncHTTPClient:)
/// let api = Client(serverURL: try Servers.Server1.url(), transport: OpenAPITransport(client: http))
/// let order = try await api.getOrder(path: .init(id: 7)).ok.body.json
/// ```
///
/// Bodies stream both ways: the request body is read as the client sends it, and the
/// response body the client returns (`HTTPClient.send(_:body:)`) is handed to the generated
/// code as soon as the head arrives, as it is: no relay task, no copy. The exchange (and its
/// terminal event) ends when the response body was read to its end. If the generated code or
/// its caller drops the body unread (generated code ignores the body of an answer documented
/// without content), a body of known length up to 64 KiB is still read to its end, so the
/// exchange succeeds as it would have; any other body dropped before its end is cancelled,
/// so a connection is never held by a body nobody reads.
///
/// Each request's ``/HTTPCore/HTTPRequest/metadata`` carries the operation id under ``operationIDKey``,
/// so log lines and dev-see payloads say which operation they were. HTTPCore middlewares run
/// inside the client, so they need no adapting to swift-openapi-runtime's `ClientMiddleware`.
///
/// Errors are ``/HTTPCore/HTTPError``s (a 4xx or 5xx is a response, as for generated code it must be);
/// swift-openapi-runtime wraps them in its `ClientError`, whose `underlyingError` is the
/// `HTTPError`.
public struct OpenAPITransport<Client: HTTPClient>: ClientTransport {
    /// The metadata key of the OpenAPI operation id.
    public static var operationIDKey: String { "openapi.operation_id" }

    /// The client every request goes through.
    public let client: Client
    /// The timeout given to each request (``/HTTPCore/HTTPRequest/timeout``): the whole exchange,
    /// response body included. `nil` for none.
    public let timeout: TimeInterval?

    /// Creates a transport sending through `client`, each request bounded by `timeout`.
    public init(client: Client, timeout: TimeInterval? = nil) {
        self.client = client
        self.timeout = timeout
    }

    /// Sends `request` to `baseURL` followed by the request's path and query, and returns
    /// the response once its head arrived, its body streaming.
    ///
    /// - Throws: ``/HTTPCore/HTTPError`` (`invalidRequest` for a method, URL or header field HTTPCore
    ///   cannot send; the client's errors otherwise).
    public func send(
        _ request: HTTPTypes.HTTPRequest,
        body: OpenAPIRuntime.HTTPBody?,
        baseURL: URL,
        operationID: String
    ) async throws -> (HTTPTypes.HTTPResponse, OpenAPIRuntime.HTTPBody?) {
        let outgoing = try Self.request(request, baseURL: baseURL, operationID: operationID, timeout: timeout)
        // A replayable body stays replayable, so a retry can send it again.
        let requestBody = body.map { body in
            body.iterationBehavior == .multiple
                ? HTTPCore.HTTPBody(length: body.length.core) { body }
                : HTTPCore.HTTPBody(body, length: body.length.core)
        }
        let (response, body) = try await client.send(outgoing, body: requestBody)
        let responseBody = HandedOverBody.openAPIBody(body)
        let head: HTTPTypes.HTTPResponse
        do {
            head = try HTTPTypes.HTTPResponse(response)
        } catch {
            throw HTTPError.invalidResponse
        }
        return (head, responseBody)
    }

    /// The HTTPCore request for an OpenAPI request: `baseURL` joined with its path, its
    /// header fields, and the operation id in its metadata.
    static func request(
        _ request: HTTPTypes.HTTPRequest,
        baseURL: URL,
        operationID: String,
        timeout: TimeInterval?
    ) throws(HTTPError) -> HTTPCore.HTTPRequest {
        guard let method = HTTPCore.HTTPMethod(request.method.rawValue) else {
            throw HTTPError.transport(.invalidRequest, message: "the method is not an HTTP token")
        }
        var base = baseURL.absoluteString
        if base.hasSuffix("/") { base.removeLast() }
        guard let url = URL(string: base + (request.path ?? "")), url.host != nil else {
            throw HTTPError.transport(.invalidRequest, message: "the server URL and the operation's path do not make an absolute URL")
        }
        return HTTPCore.HTTPRequest(
            method: method,
            url: url,
            headers: HTTPCore.HTTPHeaders(request.headerFields),
            timeout: timeout,
            metadata: [operationIDKey: operationID]
        )
    }
}

extension OpenAPIRuntime.HTTPBody.Length {
    /// The same length in HTTPCore's terms.
    var core: HTTPCore.HTTPBody.Length {
        switch self {
        case .unknown: .unknown
        case .known(let count): .known(count)
        }
    }
}
