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
    /// `HTTPTransportClient` runs this check before any transport sees a request, the
    /// caller's and each one a middleware passes on, so every transport gets it; call it
    /// yourself to check a request built from configuration early. The rules:
    /// - `url`: absolute, with the scheme `http` or `https` (any case), a host without
    ///   spaces or control characters, an IPv4 host as four dotted parts (not in brackets,
    ///   shortened as `127.1` or one number as `2130706433`, which transports read
    ///   differently: the message gives the four parts), a port in 1…65535 when it has one,
    ///   and at most ``maximumURLBytes`` long;
    /// - `timeout`: `nil`, or a number of seconds above 0 (see ``timeout`` for what infinite
    ///   and very long ones mean); 0, negative and NaN are refused;
    /// - header names: RFC 9110 tokens (letters, digits, the backtick and `!#$%&'*+-.^_|~`);
    /// - header values: no control characters but tab: CR, LF and NUL never reach the wire;
    /// - framing, which is the transport's: no `Transfer-Encoding`, and a `Content-Length`, when
    ///   set, that is the body's length (a wrong one would leave the server waiting for bytes
    ///   that never come, or cut the body); with a streamed body of unknown length, none;
    /// - body: none with `TRACE`, which RFC 9110 forbids.
    ///
    /// The method needs no check here: ``HTTPMethod`` is a token by construction.
    /// ``HTTPHeaders`` takes any name and value when they are set, so that setting a header
    /// never traps or drops it silently; this check refuses them at send, with the name.
    /// Messages never quote a header value or the URL's path, query or userinfo: they may hold
    /// secrets. A header name is quoted with the text rules applied, as events show it.
    ///
    /// The streaming `send(_:body:receive:)` runs the same check with the length of the body it
    /// streams, and refuses a request that carries a ``body`` beside the streamed one.
    public func validate() throws(HTTPError) {
        if let problem = validationProblem(bodyLength: .known(Int64(body?.count ?? 0))) { throw problem }
    }

    /// What a send with a streamed body throws when ``body`` is set too: a message has one
    /// body, and neither is the one to drop silently.
    package static let twoBodiesProblem = invalid(
        "body: request.body and the streamed body are both set; a request has one body: leave request.body nil to stream one"
    )

    /// What ``validate()`` throws for the request sent with a body of `bodyLength`, or `nil`
    /// for a request every transport can send.
    /// `checksURL`: `false` for a URL known to pass; `checkedHeaders`: headers that passed
    /// already (see ``prepareForSending(bodyLength:urlCheckedAs:headersCheckedAs:)``).
    package func validationProblem(bodyLength: HTTPBody.Length, checksURL: Bool = true, checkedHeaders: HTTPHeaders? = nil) -> HTTPError? {
        var schemeHasUppercase = false
        return validationProblem(bodyLength: bodyLength, checksURL: checksURL, checkedHeaders: checkedHeaders, schemeHasUppercase: &schemeHasUppercase)
    }

    /// ``validationProblem(bodyLength:checksURL:checkedHeaders:)``, telling as well whether the
    /// URL's scheme, when checked, has an uppercase letter.
    private func validationProblem(
        bodyLength: HTTPBody.Length, checksURL: Bool, checkedHeaders: HTTPHeaders?, schemeHasUppercase: inout Bool
    ) -> HTTPError? {
        if let problem = Self.timeoutProblem(timeout) { return problem }
        if checksURL, let problem = urlProblem(schemeHasUppercase: &schemeHasUppercase) { return problem }
        if let problem = headerProblem(bodyLength: bodyLength, checkedHeaders: checkedHeaders) { return problem }
        if method == .trace, bodyLength != .known(0) {
            return Self.invalid("body: a TRACE request has no body (RFC 9110, section 9.3.8)")
        }
        return nil
    }

    /// The request as it is handed to a transport, with a body of `bodyLength`: checked as by
    /// ``validate()``, with a
    /// ``timeout`` past ``longestTimeout`` made `nil`, so no transport sees an infinite one, and
    /// the scheme in lowercase (`HTTP://` is `http://`, RFC 3986; FoundationNetworking on Linux
    /// takes only the lowercase spelling).
    ///
    /// `checkedURL` and `checkedHeaders`: the URL and headers of a request that passed this
    /// check already, as the caller's request's did when a middleware passes on a request made
    /// from it. When the request's URL is still that one, it is neither scanned nor parsed
    /// again (its scheme was made lowercase then); the fields its headers begin with as those
    /// had them (a middleware that adds headers appends them) are checked for framing only,
    /// which depends on the body.
    package mutating func prepareForSending(
        bodyLength: HTTPBody.Length, urlCheckedAs checkedURL: URL? = nil, headersCheckedAs checkedHeaders: HTTPHeaders? = nil
    ) throws(HTTPError) {
        var schemeHasUppercase = false
        let problem = validationProblem(
            bodyLength: bodyLength, checksURL: checkedURL != url, checkedHeaders: checkedHeaders, schemeHasUppercase: &schemeHasUppercase
        )
        if let problem { throw problem }
        if let timeout, timeout > Self.longestTimeout { self.timeout = nil }
        // The scheme's case is read as the URL is checked: Foundation's `scheme` (a parse, about
        // 400 instructions) is needed only for one to lowercase.
        if schemeHasUppercase, let scheme = url.scheme,
            var components = URLComponents(url: url, resolvingAgainstBaseURL: true)
        {
            components.scheme = scheme.lowercased()
            if let lowercased = components.url { url = lowercased }
        }
    }

    /// What is wrong with a timeout, or `nil` for `nil` or a positive number of seconds.
    private static func timeoutProblem(_ timeout: TimeInterval?) -> HTTPError? {
        guard let timeout, !(timeout > 0) else { return nil }
        if timeout.isNaN { return invalid("timeout is not a number (NaN): give seconds above 0, or nil for no deadline") }
        return invalid("timeout \(timeout) s is not above 0: give seconds above 0, or nil for no deadline")
    }

    /// What is wrong with the URL, read from its absolute string in one pass: Foundation's
    /// `scheme`, `host` and `port` cost about as much each, and `port` is `nil` for one too
    /// long for an `Int` (a transport would then connect to the default port instead).
    /// `schemeHasUppercase`: set to whether the scheme has an uppercase letter, which the
    /// request as sent spells in lowercase.
    private func urlProblem(schemeHasUppercase: inout Bool) -> HTTPError? {
        var text = url.absoluteString
        return text.withUTF8 { Self.urlProblem(in: $0, schemeHasUppercase: &schemeHasUppercase) }
    }

    private static func urlProblem(in bytes: UnsafeBufferPointer<UInt8>, schemeHasUppercase: inout Bool) -> HTTPError? {
        // RFC 3986: scheme = ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ), before the first ":".
        var colon = 0
        while colon < bytes.count, bytes[colon] != UInt8(ascii: ":") {
            let byte = bytes[colon]
            guard isLetter(byte) || colon > 0 && (isDigit(byte) || byte == UInt8(ascii: "+") || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "."))
            else { return noScheme }
            if byte < UInt8(ascii: "a"), isLetter(byte) { schemeHasUppercase = true }
            colon += 1
        }
        guard colon > 0, colon < bytes.count else { return noScheme }
        // Scheme bytes are letters, digits and "+-." only, so setting 0x20 lowercases a letter and
        // turns no other of them into one.
        let isHTTP = (colon == 4 || colon == 5) && bytes[0] | 0x20 == UInt8(ascii: "h") && bytes[1] | 0x20 == UInt8(ascii: "t")
            && bytes[2] | 0x20 == UInt8(ascii: "t") && bytes[3] | 0x20 == UInt8(ascii: "p") && (colon == 4 || bytes[4] | 0x20 == UInt8(ascii: "s"))
        guard isHTTP else {
            return invalid("url scheme \(quoted(String(decoding: bytes[..<colon], as: UTF8.self))) is not supported: use http or https")
        }
        guard bytes.count <= maximumURLBytes else {
            return invalid("url is \(bytes.count) bytes long, over the limit of \(maximumURLBytes) (HTTPRequest.maximumURLBytes)")
        }
        let authorityStart = colon + 3
        guard authorityStart <= bytes.count, bytes[colon + 1] == UInt8(ascii: "/"), bytes[colon + 2] == UInt8(ascii: "/") else {
            return invalid("url has no host")
        }
        // The authority runs to the path, the query or the fragment; its host follows the last "@".
        var authorityEnd = authorityStart
        var hostStart = authorityStart
        while authorityEnd < bytes.count {
            let byte = bytes[authorityEnd]
            if byte == UInt8(ascii: "/") || byte == UInt8(ascii: "?") || byte == UInt8(ascii: "#") { break }
            if byte == UInt8(ascii: "@") { hostStart = authorityEnd + 1 }
            authorityEnd += 1
        }
        // An IP literal ends after its "]"; any other host at the port's ":".
        var hostEnd = hostStart
        if hostStart < authorityEnd, bytes[hostStart] == UInt8(ascii: "[") {
            while hostEnd < authorityEnd, bytes[hostEnd] != UInt8(ascii: "]") { hostEnd += 1 }
            if hostEnd < authorityEnd { hostEnd += 1 }
        } else {
            while hostEnd < authorityEnd, bytes[hostEnd] != UInt8(ascii: ":") { hostEnd += 1 }
        }
        let hostLength = hostEnd - hostStart
        let isEmptyIPLiteral = hostLength == 2 && bytes[hostStart] == UInt8(ascii: "[") && bytes[hostStart + 1] == UInt8(ascii: "]")
        guard hostLength > 0, !isEmptyIPLiteral else { return invalid("url has no host") }
        guard !hasSpaceOrControl(bytes[hostStart..<hostEnd]) else { return invalid("url host has a space or a control character") }
        if isDigit(bytes[hostStart]) || bytes[hostStart] == UInt8(ascii: "["), let problem = ipv4FormProblem(bytes[hostStart..<hostEnd]) {
            return problem
        }
        guard hostEnd < authorityEnd, bytes[hostEnd] == UInt8(ascii: ":") else { return nil }
        return portProblem(bytes[(hostEnd + 1)..<authorityEnd])
    }

    /// The problem of a URL that does not begin with a scheme and its `:`.
    private static var noScheme: HTTPError { invalid("url has no scheme: use an absolute http or https URL") }

    /// What is wrong with the port written after a URL's host, or `nil` when it is empty (the
    /// scheme's default) or in 1…65535.
    private static func portProblem(_ digits: Slice<UnsafeBufferPointer<UInt8>>) -> HTTPError? {
        guard !digits.isEmpty else { return nil }
        // The port's text is made for a message only: a valid one costs no string.
        guard digits.allSatisfy(isDigit) else { return invalid("port \(quoted(String(decoding: digits, as: UTF8.self))) is not a number in 1…65535") }
        let significant = digits.drop { $0 == UInt8(ascii: "0") }
        let number = significant.count > 5 ? Int.max : significant.reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) }
        guard (1...65_535).contains(number) else {
            return invalid("port \(UTF8Text.cut(String(decoding: digits, as: UTF8.self), toBytes: 32)) is out of range 1…65535")
        }
        return nil
    }

    /// What is odd about a host written as an IPv4 address in a form other than four dotted
    /// decimal parts, or `nil` for any other host: in brackets, which are for IPv6 only
    /// (`[127.0.0.1]`), shortened (`127.1`), or one number (`2130706433`). Transports read these
    /// forms differently (URLSession refuses them, a resolver may take them as the address
    /// written in full), so each is refused with the form to write instead.
    private static func ipv4FormProblem(_ host: Slice<UnsafeBufferPointer<UInt8>>) -> HTTPError? {
        let text = { String(decoding: host, as: UTF8.self) }
        if host.first == UInt8(ascii: "[") {
            let inside = host.dropFirst().prefix { $0 != UInt8(ascii: "]") }
            guard !inside.contains(UInt8(ascii: ":")), !inside.isEmpty else { return nil }
            return invalid("url host \(UTF8Text.cut(text(), toBytes: 64)) is in brackets, which are for IPv6 addresses only: write an IPv4 address without them")
        }
        // Only digits and dots: an address, not a name (no top-level domain is numeric). Counted
        // in place, so that a four-part address, the usual one, costs no allocation.
        var dots = 0
        for byte in host {
            if byte == UInt8(ascii: ".") { dots += 1 } else if !isDigit(byte) { return nil }
        }
        guard dots < 3 else { return nil }
        let parts = host.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard !parts.contains(where: \.isEmpty), parts.allSatisfy({ $0.count <= 10 }) else { return nil }
        let values = parts.map { $0.reduce(UInt64(0)) { $0 * 10 + UInt64($1 - UInt8(ascii: "0")) } }
        // As a resolver reads it: the last part fills the bytes the others leave.
        let leading = values.dropLast()
        let lastBits = 8 * (4 - leading.count)
        guard leading.allSatisfy({ $0 <= 255 }), let last = values.last, last < (UInt64(1) << lastBits) else {
            return invalid("url host \(UTF8Text.cut(text(), toBytes: 64)) is not an IPv4 address: write its four parts, each 0 to 255")
        }
        let address = leading.reduce(UInt64(0)) { $0 << 8 | $1 } << lastBits | last
        let dotted = (0..<4).map { String(address >> (8 * (3 - $0)) & 0xFF) }.joined(separator: ".")
        let form = parts.count == 1 ? "an IPv4 address written as one number" : "a shortened IPv4 address"
        return invalid("url host \(text()) is \(form): write its four parts, \(dotted)")
    }

    /// Whether a host, percent-decoded, holds a space or a control character.
    private static func hasSpaceOrControl(_ host: Slice<UnsafeBufferPointer<UInt8>>) -> Bool {
        var index = host.startIndex
        while index < host.endIndex {
            var byte = host[index]
            if byte == UInt8(ascii: "%"), index + 2 < host.endIndex, let high = HexDigit.value(host[index + 1]), let low = HexDigit.value(host[index + 2]) {
                byte = high << 4 | low
                index += 2
            }
            if byte <= 0x20 || byte == 0x7F { return true }
            index += 1
        }
        return false
    }

    private static func isLetter(_ byte: UInt8) -> Bool {
        (byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "z")
    }

    private static func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }

    /// What is wrong with one of the caller's framing fields for a body of `bodyLength`: a
    /// `Transfer-Encoding`, or a `Content-Length` that is not that length; `nil` for any other
    /// field, or one that gives that length.
    private static func framingProblem(_ field: HTTPHeaders.Field, bodyLength: HTTPBody.Length) -> HTTPError? {
        if HTTPHeaders.matches(field.name, "Transfer-Encoding") {
            return invalid(
                "header Transfer-Encoding is the transport's to set: leave it out (a streamed body of unknown length is sent chunked)"
            )
        }
        guard HTTPHeaders.matches(field.name, "Content-Length") else { return nil }
        guard case .known(let length) = bodyLength else {
            return invalid(
                "header Content-Length is set for a streamed body of unknown length: give the body its length (HTTPBody(length:)) instead"
            )
        }
        for item in field.value.split(separator: ",", omittingEmptySubsequences: false) {
            let digits = item.utf8.drop { $0 == 0x20 || $0 == 0x09 }.reversed().drop { $0 == 0x20 || $0 == 0x09 }
            let text = String(decoding: digits.reversed(), as: UTF8.self)
            guard !text.isEmpty, text.utf8.allSatisfy(isDigit), Int64(text) == length else {
                // The value is not quoted, as no header value is: a header set from the wrong
                // variable may hold a secret.
                return invalid("header Content-Length is not the body's length, \(length) bytes: leave it out, the transport sets it")
            }
        }
        return nil
    }

    /// What is wrong with a header, checked in one pass over the fields: its name, its value,
    /// then framing. The first fields that are those of `checkedHeaders`, which passed, are
    /// checked for framing only.
    private func headerProblem(bodyLength: HTTPBody.Length, checkedHeaders: HTTPHeaders?) -> HTTPError? {
        var checkedCount = checkedHeaders.map(headers.countOfLeadingFields(sharedWith:)) ?? 0
        for field in headers {
            guard checkedCount == 0 else {
                checkedCount -= 1
                if let problem = Self.framingProblem(field, bodyLength: bodyLength) { return problem }
                continue
            }
            if field.name.isEmpty { return Self.invalid("header name is empty") }
            if !Self.allBytes(of: field.name, satisfy: HTTPMethod.isTokenCharacter) {
                return Self.invalid("header name \(Self.quoted(name: field.name)) is not a token: letters, digits and !#$%&'*+-.^_`|~ only")
            }
            if !Self.isFieldValue(field.value) {
                let offset = field.value.utf8.firstIndex { !Self.isFieldValueByte($0) }!
                let position = field.value.utf8.distance(from: field.value.utf8.startIndex, to: offset)
                return Self.invalid(
                    "header \(Self.quoted(name: field.name)) value has \(Self.controlName(field.value.utf8[offset])) at byte \(position): "
                        + "values may not hold CR, LF, NUL or other control characters but tab"
                )
            }
            if let problem = Self.framingProblem(field, bodyLength: bodyLength) { return problem }
        }
        return nil
    }

    /// Whether RFC 9110 allows `byte` in a field value as sent: anything but a control
    /// character, tab excepted (CR, LF and NUL among them).
    private static func isFieldValueByte(_ byte: UInt8) -> Bool {
        byte >= 0x20 ? byte != 0x7F : byte == 0x09
    }

    /// Whether RFC 9110 allows every UTF-8 byte of `value` in a field value as sent
    /// (``isFieldValueByte(_:)``), read 8 bytes at a time: a word with no byte under 0x20 and no
    /// 0x7F is allowed whole, and only a word with one (a tab, most often) is read byte by byte.
    /// Header values are the longest text a request carries that is checked on every attempt.
    private static func isFieldValue(_ value: String) -> Bool {
        value.utf8.withContiguousStorageIfAvailable { bytes in
            isFieldValue(UnsafeRawBufferPointer(bytes))
        } ?? value.utf8.allSatisfy(isFieldValueByte)
    }

    private static func isFieldValue(_ bytes: UnsafeRawBufferPointer) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highBits: UInt64 = 0x8080_8080_8080_8080
        var offset = 0
        while offset + 8 <= bytes.count {
            let word = bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
            // A byte under 0x20 sets its high bit in the first; a 0x7F byte, zero in `delete`,
            // in the second (bit tricks exact for "is there one", which is all that is asked).
            let delete = word ^ (ones &* 0x7F)
            let flagged = ((word &- ones &* 0x20) & ~word | (delete &- ones) & ~delete) & highBits
            if flagged != 0 {
                for index in offset..<(offset + 8) where !isFieldValueByte(bytes[index]) { return false }
            }
            offset += 8
        }
        for index in offset..<bytes.count where !isFieldValueByte(bytes[index]) { return false }
        return true
    }

    /// Whether every UTF-8 byte of `text` satisfies `predicate`, scanned in place when the
    /// string's storage allows.
    private static func allBytes(of text: String, satisfy predicate: (UInt8) -> Bool) -> Bool {
        text.utf8.withContiguousStorageIfAvailable { $0.allSatisfy(predicate) } ?? text.utf8.allSatisfy(predicate)
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

    /// A header name as a message quotes it: as events show it (``/HTTPCoreRedaction/Redactor/redactedHeaderName(_:)``),
    /// since a name that is not a token may be a whole line pasted as the name
    /// (`X-Debug-Authorization: Bearer …`), then quoted like any text.
    private static func quoted(name: String) -> String {
        quoted(Redactor.standard.redactedHeaderName(name))
    }

    private static func invalid(_ message: String) -> HTTPError {
        .transport(.invalidRequest, message: message)
    }
}
