import Foundation
import HTTPCoreText

extension HTTPRequest {
    /// The longest URL a request may have, in UTF-8 bytes of its absolute string: 64 KiB.
    ///
    /// Servers commonly refuse far shorter ones (RFC 9110 asks them to take at least 8,000
    /// bytes); the limit is there to stop a URL built by mistake, not to predict a server.
    public static let maximumURLBytes = 65_536

    /// The longest ``timeout`` that is a deadline: a century. A longer one, infinity included,
    /// means no deadline, as `nil` does.
    public static let longestTimeout: TimeInterval = 100 * 365 * 86_400

    /// Checks what every transport needs of a request before a byte is sent, and throws
    /// ``HTTPError/Code/invalidRequest`` with a message that names the field and the rule.
    ///
    /// ``HTTPTransportClient`` runs this check before any transport sees a request, the
    /// caller's and each one a middleware passes on, so every transport gets it; call it
    /// yourself to check a request built from configuration early. The rules:
    /// - `url`: absolute, with the scheme `http` or `https` (any case), a host without
    ///   spaces or control characters, a port in 1…65535 when it has one, and at most
    ///   ``maximumURLBytes`` long;
    /// - `timeout`: `nil`, or a number of seconds above 0 (see ``timeout`` for what infinite
    ///   and very long ones mean); 0, negative and NaN are refused;
    /// - header names: RFC 9110 tokens (letters, digits and ``!#$%&'*+-.^_`|~``);
    /// - header values: no control characters but tab: CR, LF and NUL never reach the wire;
    /// - body: none with `TRACE`, which RFC 9110 forbids.
    ///
    /// The method needs no check here: ``HTTPMethod`` is a token by construction.
    /// ``HTTPHeaders`` takes any name and value when they are set, so that setting a header
    /// never traps or drops it silently; this check refuses them at send, with the name.
    /// Messages never quote a header value or the URL's path, query or userinfo: they may hold
    /// secrets.
    public func validate() throws(HTTPError) {
        if let problem = validationProblem { throw problem }
    }

    /// What ``validate()`` throws, or `nil` for a request every transport can send.
    package var validationProblem: HTTPError? {
        if let problem = Self.timeoutProblem(timeout) { return problem }
        if let problem = urlProblem { return problem }
        if let problem = headerProblem { return problem }
        if method == .trace, let body, !body.isEmpty { return Self.traceBody }
        return nil
    }

    /// What a `TRACE` request with a body, buffered or streamed, fails with.
    package static let traceBody = invalid("body: a TRACE request has no body (RFC 9110, section 9.3.8)")

    /// The request as it is handed to a transport: checked by ``validate()``, with a
    /// ``timeout`` past ``longestTimeout`` made `nil`, so no transport sees an infinite one, and
    /// the scheme in lowercase (`HTTP://` is `http://`, RFC 3986; FoundationNetworking on Linux
    /// takes only the lowercase spelling).
    package mutating func prepareForSending() throws(HTTPError) {
        try validate()
        if let timeout, timeout > Self.longestTimeout { self.timeout = nil }
        if let scheme = url.scheme, scheme.utf8.contains(where: { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") }),
            var components = URLComponents(url: url, resolvingAgainstBaseURL: true)
        {
            components.scheme = scheme.lowercased()
            if let lowercased = components.url { url = lowercased }
        }
    }

    /// What is wrong with a timeout, or `nil` for `nil` or a positive number of seconds.
    package static func timeoutProblem(_ timeout: TimeInterval?) -> HTTPError? {
        guard let timeout, !(timeout > 0) else { return nil }
        if timeout.isNaN { return invalid("timeout is not a number (NaN): give seconds above 0, or nil for no deadline") }
        return invalid("timeout \(timeout) s is not above 0: give seconds above 0, or nil for no deadline")
    }

    private var urlProblem: HTTPError? {
        guard let scheme = url.scheme, !scheme.isEmpty else {
            return Self.invalid("url has no scheme: use an absolute http or https URL")
        }
        guard HTTPHeaders.matches(scheme, "http") || HTTPHeaders.matches(scheme, "https") else {
            return Self.invalid("url scheme \(Self.quoted(scheme)) is not supported: use http or https")
        }
        let text = url.absoluteString
        let length = text.utf8.count
        guard length <= Self.maximumURLBytes else {
            return Self.invalid("url is \(length) bytes long, over the limit of \(Self.maximumURLBytes) (HTTPRequest.maximumURLBytes)")
        }
        guard let host = url.host, !host.isEmpty else { return Self.invalid("url has no host") }
        guard host.utf8.allSatisfy({ $0 > 0x20 && $0 != 0x7F }) else {
            return Self.invalid("url host has a space or a control character")
        }
        return Self.portProblem(inAuthorityOf: text)
    }

    /// What is wrong with the port written in a URL's authority, or `nil` when it has none, an
    /// empty one (the scheme's default) or one in 1…65535.
    ///
    /// Read from the text, not from `URL.port`: Foundation gives `nil` for a port too long for
    /// an `Int`, and a transport would then connect to the default port instead.
    private static func portProblem(inAuthorityOf text: String) -> HTTPError? {
        let bytes = text.utf8
        guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")),
            bytes[colon...].starts(with: "://".utf8)
        else { return nil }
        let authorityStart = bytes.index(colon, offsetBy: 3)
        let authority = bytes[authorityStart...].prefix { !"/?#".utf8.contains($0) }
        let hostAndPort = authority.lastIndex(of: UInt8(ascii: "@")).map { authority[authority.index(after: $0)...] } ?? authority[...]
        let afterHost = hostAndPort.lastIndex(of: UInt8(ascii: "]")).map { hostAndPort[hostAndPort.index(after: $0)...] } ?? hostAndPort
        guard let portColon = afterHost.lastIndex(of: UInt8(ascii: ":")) else { return nil }
        let digits = afterHost[afterHost.index(after: portColon)...]
        guard !digits.isEmpty else { return nil }
        let port = String(decoding: digits, as: UTF8.self)
        guard digits.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else {
            return invalid("port \(quoted(port)) is not a number in 1…65535")
        }
        let significant = digits.drop { $0 == UInt8(ascii: "0") }
        let number = significant.count > 5 ? Int.max : significant.reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) }
        guard (1...65_535).contains(number) else {
            return invalid("port \(UTF8Text.cut(port, toBytes: 32)) is out of range 1…65535")
        }
        return nil
    }

    private var headerProblem: HTTPError? {
        for field in headers {
            if field.name.isEmpty { return Self.invalid("header name is empty") }
            if !field.name.utf8.allSatisfy(HTTPMethod.isTokenCharacter) {
                return Self.invalid("header name \(Self.quoted(field.name)) is not a token: letters, digits and !#$%&'*+-.^_`|~ only")
            }
            if let offset = field.value.utf8.firstIndex(where: { ($0 < 0x20 && $0 != 0x09) || $0 == 0x7F }) {
                let byte = field.value.utf8[offset]
                let position = field.value.utf8.distance(from: field.value.utf8.startIndex, to: offset)
                return Self.invalid(
                    "header \(Self.quoted(field.name)) value has \(Self.controlName(byte)) at byte \(position): "
                        + "values may not hold CR, LF, NUL or other control characters but tab"
                )
            }
        }
        return nil
    }

    private static func controlName(_ byte: UInt8) -> String {
        switch byte {
        case 0x0D: "CR"
        case 0x0A: "LF"
        case 0x00: "NUL"
        default: "the control character 0x" + String(byte, radix: 16, uppercase: true)
        }
    }

    /// `text` cut to 64 bytes, as a quoted string with control characters escaped.
    private static func quoted(_ text: String) -> String {
        String(decoding: JSONString.encode(UTF8Text.cut(text, toBytes: 64)), as: UTF8.self)
    }

    private static func invalid(_ message: String) -> HTTPError {
        .transport(.invalidRequest, message: message)
    }
}
