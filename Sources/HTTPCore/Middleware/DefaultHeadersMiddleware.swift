/// Adds header fields that every request should carry (`User-Agent`, `Accept`, an API key
/// name) unless the request sets them itself.
///
/// A field is added only when the request has no field of that name (compared without
/// case); all default fields of a missing name are added, in order.
///
/// ```swift
/// let defaults = DefaultHeadersMiddleware(["User-Agent": "MyApp/2.1", "Accept": "application/json"])
/// let client = URLSessionClient(middlewares: [defaults])
/// ```
public struct DefaultHeadersMiddleware: HTTPMiddleware {
    /// The fields added to requests that lack them.
    public let headers: HTTPHeaders

    /// Creates the middleware with the fields to add.
    public init(_ headers: HTTPHeaders) {
        self.headers = headers
    }

    /// Adds the missing default fields, then sends the request.
    public func intercept(
        _ request: HTTPRequest,
        body: HTTPBody?,
        context: HTTPMiddlewareContext,
        next: HTTPMiddlewareNext
    ) async throws -> (HTTPResponse.Head, HTTPBody) {
        var request = request
        let missing = headers.filter { !request.headers.contains($0.name) }
        for field in missing {
            request.headers.add(name: field.name, value: field.value)
        }
        return try await next(request, body)
    }
}
