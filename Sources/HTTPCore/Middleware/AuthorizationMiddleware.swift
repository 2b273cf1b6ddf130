import Foundation

/// Adds a credential to each request from an async provider, and on a 401 refreshes it once
/// and sends the request again.
///
/// Refreshes are single-flight: however many requests get a 401 for the same credential at
/// once, the provider refreshes it once and every one of them retries with the result. A
/// request is retried at most once, so a credential the server keeps refusing gives the
/// caller the 401 instead of a loop. A request that already carries the header is sent as it
/// is, and its 401 is returned.
///
/// ```swift
/// let auth = AuthorizationMiddleware(
///     credential: { try await tokenStore.accessToken() },
///     refresh: { rejected in try await tokenStore.refreshAccessToken(replacing: rejected) }
/// )
/// let client = URLSessionClient(middlewares: [RetryMiddleware(), auth])
/// ```
///
/// When the provider throws, the request fails with
/// ``HTTPError/Code/credentialUnavailable``, naming only the error's type (never its
/// text, which may hold a credential). Copies of the middleware share the cached credential.
public struct AuthorizationMiddleware: HTTPMiddleware {
    /// The header that carries the credential.
    public let headerName: String
    /// The word before the credential in the header (`Bearer`), or `nil` to send it alone.
    public let scheme: String?
    private let store: CredentialStore

    /// Creates the middleware.
    ///
    /// - Parameters:
    ///   - headerName: The header to set; `Authorization` by default.
    ///   - scheme: The word before the credential; `Bearer` by default, `nil` for none.
    ///   - credential: The current credential; called once, then cached until a refresh.
    ///   - refresh: A new credential to replace `rejected`, which the server refused.
    public init(
        headerName: String = "Authorization",
        scheme: String? = "Bearer",
        credential: @escaping @Sendable () async throws -> String,
        refresh: @escaping @Sendable (_ rejected: String) async throws -> String
    ) {
        self.init(headerName: headerName, scheme: scheme, credential: credential, refresh: refresh, credentialAsked: {})
    }

    /// Creates the middleware with `credentialAsked` called each time a request asks for its
    /// credential, in the same step that decides whether it waits for a fetch or refresh in
    /// flight; tests count these to know every request of a burst has asked.
    init(
        headerName: String = "Authorization",
        scheme: String? = "Bearer",
        credential: @escaping @Sendable () async throws -> String,
        refresh: @escaping @Sendable (_ rejected: String) async throws -> String,
        credentialAsked: @escaping @Sendable () -> Void
    ) {
        self.headerName = headerName
        self.scheme = scheme
        store = CredentialStore(fetch: credential, refresh: refresh, asked: credentialAsked)
    }

    /// Sends the request with the credential; on 401, once more with a refreshed one, when
    /// its body can be sent again (none, or a replayable one).
    ///
    /// Waits for the provider no longer than the exchange's deadline
    /// (``HTTPMiddlewareContext/withinDeadline(_:)``).
    public func intercept(
        _ request: HTTPRequest,
        body: HTTPBody?,
        context: HTTPMiddlewareContext,
        next: HTTPMiddlewareNext
    ) async throws -> (HTTPResponse.Head, HTTPBody) {
        guard !request.headers.contains(headerName) else { return try await next(request, body) }
        let credential = try await provided(within: context) { try await store.current() }
        let (response, responseBody) = try await next(authorized(request, with: credential), body)
        guard response.statusCode == 401, body.map({ $0.iterationBehavior == .multiple }) ?? true else {
            return (response, responseBody)
        }
        let refreshed = try await provided(within: context) { try await store.refreshed(rejecting: credential) }
        guard refreshed != credential else { return (response, responseBody) }
        responseBody.stopReading()
        return try await next(authorized(request, with: refreshed), body)
    }

    private func authorized(_ request: HTTPRequest, with credential: String) -> HTTPRequest {
        var request = request
        request.headers.set(name: headerName, value: scheme.map { "\($0) \(credential)" } ?? credential)
        return request
    }

    private func provided(
        within context: HTTPMiddlewareContext, _ body: @escaping @Sendable () async throws -> String
    ) async throws -> String {
        do {
            return try await context.withinDeadline(body)
        } catch is CancellationError {
            throw CancellationError()
        } catch let error as HTTPError where error.code == .timeout {
            throw error
        } catch {
            throw HTTPError.transport(
                .credentialUnavailable, message: "the credential provider failed: \(type(of: error))"
            )
        }
    }
}

extension HTTPError.Code {
    /// A middleware could not get the credential a request needs.
    public static let credentialUnavailable = HTTPError.Code("credential_unavailable")
}
