import Foundation

extension HTTPRequest {
    /// The request as a WebSocket handshake is sent (RFC 6455, section 4.1): a `GET` without a
    /// body, to a `ws` or `wss` URL (its scheme made lowercase), with everything else checked
    /// as for any request (``validate()``).
    ///
    /// - Throws: ``HTTPError/Code/invalidRequest``, naming the field and the rule.
    package mutating func prepareForWebSocketHandshake() throws(HTTPError) {
        guard method == .get else {
            throw Self.invalidHandshake("method: a WebSocket handshake is a GET (RFC 6455, section 4.1), not \(method.rawValue)")
        }
        guard body?.isEmpty ?? true else {
            throw Self.invalidHandshake("body: a WebSocket handshake has no body; send what you have as messages once it is open")
        }
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: true), let scheme = components.scheme?.lowercased() else {
            throw Self.invalidHandshake("url has no scheme: use an absolute ws or wss URL")
        }
        guard scheme == "ws" || scheme == "wss" else {
            throw Self.invalidHandshake("url scheme \"\(scheme)\" is not a WebSocket scheme: use ws or wss")
        }
        // Checked as the HTTP request it is sent as.
        var checked = self
        components.scheme = scheme == "ws" ? "http" : "https"
        guard let sentAs = components.url else { throw Self.invalidHandshake("url is not a valid URL") }
        checked.url = sentAs
        try checked.prepareForSending(bodyLength: .known(0))
        components.scheme = scheme
        url = components.url ?? url
        timeout = checked.timeout
        body = nil
    }

    private static func invalidHandshake(_ message: String) -> HTTPError {
        .transport(.invalidRequest, message: message)
    }
}
