import AsyncHTTPClient
import Foundation
import HTTPCore
import NIOCore

/// An ``HTTPTransport`` over AsyncHTTPClient: server-side Swift's HTTP client under HTTPCore's
/// contract, observed like any other client.
///
/// ```swift
/// import AsyncHTTPClient
/// import HTTPCore
/// import HTTPCoreAsyncHTTPClient
///
/// let ahc = AsyncHTTPClientTransport.makeHTTPClient()          // AHC's own tracing off
/// let client = HTTPTransportClient(transport: AsyncHTTPClientTransport(client: ahc))
/// let response = try await client.send(HTTPCore.HTTPRequest(url: url, timeout: 5))
/// try await ahc.shutdown()
/// ```
///
/// - Method, headers (repeated ones too, both ways) and body are passed as they are.
/// - The request's `timeout` becomes AHC's deadline for the whole exchange.
/// - Redirects are followed as the `HTTPClient` is configured; the response's `url` is the
///   final one.
/// - The response body is read up to ``maximumResponseBytes``; beyond it the exchange fails
///   with ``HTTPError/Code/responseTooLarge`` (`response_too_large`), so a huge answer cannot
///   exhaust memory.
/// - Task cancellation cancels the request.
/// - AHC and NIO errors become ``HTTPError`` codes (see ``HTTPError/init(asyncHTTPClientError:url:)``),
///   with messages that name the host and port, never the full URL.
///
/// AHC creates a span per request with the unredacted URL when its configuration has a
/// tracer. ``makeHTTPClient(configuration:)`` switches that off, so `HTTPCoreTracing` spans
/// are not doubled and `url.full` never leaves the process unredacted; a client you make
/// yourself should set `configuration.tracing.tracer = nil` too (and, for URLSession-like
/// failures, `connectionPool.retryConnectionEstablishment = false`).
public struct AsyncHTTPClientTransport: HTTPTransport {
    /// The AHC client that performs the exchanges; its owner shuts it down.
    public let client: AsyncHTTPClient.HTTPClient
    /// The most bytes of a response body read; 64 MiB by default.
    public let maximumResponseBytes: Int

    /// Creates a transport over `client`.
    public init(client: AsyncHTTPClient.HTTPClient, maximumResponseBytes: Int = 64 * 1024 * 1024) {
        self.client = client
        self.maximumResponseBytes = maximumResponseBytes
    }

    /// An `HTTPClient` with AHC's own tracing off (`HTTPCoreTracing` traces instead), failed
    /// connections reported at once rather than retried until the deadline, and the shared
    /// event loop group.
    public static func makeHTTPClient(
        configuration: AsyncHTTPClient.HTTPClient.Configuration = .init()
    ) -> AsyncHTTPClient.HTTPClient {
        var configuration = configuration
        configuration.tracing.tracer = nil
        // A refused or unresolvable host fails at once, as with URLSession, instead of being
        // retried until the request's deadline.
        configuration.connectionPool.retryConnectionEstablishment = false
        return AsyncHTTPClient.HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }

    /// Performs one exchange with AHC.
    public func perform(_ request: HTTPCore.HTTPRequest) async throws -> HTTPCore.HTTPResponse {
        var outgoing = HTTPClientRequest(url: request.url.absoluteString)
        outgoing.method = .init(rawValue: request.method.rawValue)
        for field in request.headers {
            outgoing.headers.add(name: field.name, value: field.value)
        }
        if let body = request.body, !body.isEmpty || request.method != .get {
            outgoing.body = .bytes(ByteBuffer(bytes: body))
        }
        let deadline = request.timeout.map { NIODeadline.now() + .nanoseconds(Int64(($0 * 1e9).rounded())) } ?? .distantFuture
        do {
            let response = try await client.execute(outgoing, deadline: deadline)
            let body = try await response.body.collect(upTo: maximumResponseBytes)
            var headers = HTTPCore.HTTPHeaders()
            for (name, value) in response.headers {
                headers.add(name: name, value: value)
            }
            return HTTPCore.HTTPResponse(
                requestID: request.id,
                statusCode: Int(response.status.code),
                headers: headers,
                body: Data(body.readableBytesView),
                url: response.url ?? request.url
            )
        } catch is NIOTooManyBytesError {
            throw HTTPCore.HTTPError.transport(
                .responseTooLarge,
                message: "the response body is over \(maximumResponseBytes) bytes (\(Self.target(request.url)))"
            )
        } catch {
            throw HTTPCore.HTTPError(asyncHTTPClientError: error, url: request.url)
        }
    }

    static func target(_ url: URL) -> String {
        [url.host, url.port.map(String.init)].compactMap { $0 }.joined(separator: ":")
    }
}

extension HTTPTransportClient where Transport == AsyncHTTPClientTransport {
    /// A client over AHC, with middlewares, events and the policy like any HTTPCore client.
    public init(
        asyncHTTPClient client: AsyncHTTPClient.HTTPClient,
        maximumResponseBytes: Int = 64 * 1024 * 1024,
        middlewares: [any HTTPMiddleware] = [],
        dispatcher: HTTPEventDispatcher = .shared,
        policy: HTTPCorePolicy = .default
    ) {
        self.init(
            transport: AsyncHTTPClientTransport(client: client, maximumResponseBytes: maximumResponseBytes),
            middlewares: middlewares, dispatcher: dispatcher, policy: policy
        )
    }
}
