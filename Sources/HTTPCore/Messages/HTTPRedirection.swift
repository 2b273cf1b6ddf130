/// How a transport that followed redirects reached its response: the request that got the
/// final status, and the redirects on the way.
///
/// A 303, or a 301 or 302 after a `POST`, turns the request into a `GET` without a body;
/// a 307 or 308 sends the same method and body again. Outputs show the final request, so
/// a `POST` answered `303` and then `200` reads as the `GET` that got the `200`. The final
/// URL is the response's ``HTTPResponse/url``.
public struct HTTPRedirection: Sendable, Hashable {
    /// The method of the request that got the final response.
    public var method: HTTPMethod
    /// Whether that request carried the original request's body again.
    public var resentBody: Bool
    /// The redirect statuses followed, in order, as far as the transport saw them: empty
    /// when it knows only where the redirects ended (a URLSession task that does not ask its
    /// delegate).
    public var statusCodes: [Int]

    /// Creates a redirection that ended with a `method` request, which carried the body
    /// again when `resentBody`, after redirects with `statusCodes`.
    public init(method: HTTPMethod, resentBody: Bool, statusCodes: [Int] = []) {
        self.method = method
        self.resentBody = resentBody
        self.statusCodes = statusCodes
    }

    /// The way from the original request to the final one, for a line of text:
    /// `POST https://api.example.com/submit → 303 → GET https://api.example.com/done`
    /// (`→ redirected →` when the statuses are not known).
    public func route(from method: String, _ url: String, to finalURL: String) -> String {
        let hops = statusCodes.isEmpty ? ["redirected"] : statusCodes.map(String.init)
        return (["\(method) \(url)"] + hops + ["\(self.method) \(finalURL)"]).joined(separator: " → ")
    }

    /// The redirection after `earlier` hops, then these: statuses in order, method and body
    /// of the last request.
    package func following(_ earlier: HTTPRedirection?) -> HTTPRedirection {
        guard let earlier else { return self }
        return HTTPRedirection(method: method, resentBody: resentBody && earlier.resentBody, statusCodes: earlier.statusCodes + statusCodes)
    }
}
