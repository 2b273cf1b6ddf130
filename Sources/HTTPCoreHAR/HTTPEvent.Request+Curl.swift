import Foundation
import HTTPCore
import HTTPCoreObservation
import HTTPCoreText

extension HTTPEvent.Request {
    /// A `curl` command line that sends this request as the event shows it: redacted, so a
    /// masked value stays `[REDACTED]`, and safe to paste into a POSIX shell.
    ///
    /// ```swift
    /// print(event.request.curlCommand)
    /// // curl -g -X POST 'https://api.example.com/login?client_secret=[REDACTED]' \
    /// //   -H 'Content-Type: application/json' --data-binary '{"user":"roy","password":"[REDACTED]"}'
    /// ```
    ///
    /// The URL, each header and the body are single-quoted (a `'` inside becomes `'\''`);
    /// `-g` keeps curl from reading `[REDACTED]` as a URL range. `Content-Length` and `Host` are
    /// left to curl. A body that is not UTF-8 text, or holds a NUL byte, is passed through
    /// `base64 -d`; a body that the policy cut short is sent as captured, with a comment saying
    /// so. Rendering reads each byte a bounded number of times, whatever the body holds.
    ///
    /// A WebSocket handshake (a `ws` or `wss` URL) is a `websocat` command line instead, since
    /// curl's own WebSocket support is experimental and sends no messages from a terminal:
    ///
    /// ```swift
    /// // websocat 'wss://api.example.com/graphql' -H 'Authorization: [REDACTED]' --protocol graphql-transport-ws
    /// ```
    ///
    /// The URL comes first, since websocat's `-H` would take it for one more header; then the
    /// headers as `-H` options, quoted and redacted as curl's, but for those websocat makes
    /// for the handshake itself (`Host`, `Connection`, `Upgrade`, `Sec-WebSocket-Key`,
    /// `Sec-WebSocket-Version`, `Sec-WebSocket-Extensions`); `Sec-WebSocket-Protocol` is its
    /// `--protocol`.
    public var curlCommand: String { exposed.curlCommand }
}

extension HTTPEvent.ExposedRequest {
    /// The command line of ``HTTPEvent/Request/curlCommand``, for these fields.
    package var curlCommand: String {
        let scheme = url.prefix { $0 != ":" }.lowercased()
        if scheme == "ws" || scheme == "wss" { return websocatCommand }
        var words = ["curl", "-g"]
        switch method {
        case .get where body == nil: break
        case .head: words.append("--head")
        default: words += ["-X", Self.quoted(method.rawValue)]
        }
        words.append(Self.singleQuoted(url))
        for field in headers where !["content-length", "host"].contains(field.name.lowercased()) {
            words += ["-H", Self.singleQuoted("\(field.name): \(field.value)")]
        }
        var prefix = ""
        if let body {
            if !body.contains(0), let text = UTF8Text.decode(body, isCut: isBodyTruncated) {
                words += ["--data-binary", Self.singleQuoted(text)]
            } else {
                // Base64 holds no quote: quoted as it is, without scanning it.
                prefix = "printf '%s' '" + body.base64EncodedString() + "' | base64 -d | "
                words += ["--data-binary", "@-"]
            }
        }
        let command = prefix + words.joined(separator: " ")
        return isBodyTruncated ? command + " # the body was cut to what the policy captured" : command
    }

    /// The headers websocat writes in every handshake, which a second copy would break.
    private static let handshakeHeaderNames: Set<String> = [
        "host", "connection", "upgrade", "content-length", "sec-websocket-key", "sec-websocket-version", "sec-websocket-extensions",
    ]

    /// The `websocat` command line of a WebSocket handshake: the URL, then its headers as
    /// `-H`, but for websocat's own, and `Sec-WebSocket-Protocol` as `--protocol`. The URL
    /// comes first because websocat's `-H` takes every value up to the next option: a URL
    /// after it would be read as one more header.
    private var websocatCommand: String {
        var words = ["websocat", Self.singleQuoted(url)]
        for field in headers where !Self.handshakeHeaderNames.contains(field.name.lowercased()) {
            if field.name.lowercased() == "sec-websocket-protocol" {
                words += ["--protocol", Self.quoted(field.value)]
            } else {
                words += ["-H", Self.singleQuoted("\(field.name): \(field.value)")]
            }
        }
        return words.joined(separator: " ")
    }

    /// `text` in single quotes for a POSIX shell; a plain word (letters, digits, `-_./:@%+=,`)
    /// stays as it is.
    static func quoted(_ text: String) -> String {
        let isPlain = !text.isEmpty && text.utf8.allSatisfy { plainBytes[Int($0)] }
        return isPlain ? text : singleQuoted(text)
    }

    /// `text` in single quotes, each `'` inside written `'\''`; one pass over its bytes.
    static func singleQuoted(_ text: String) -> String {
        let quote = UInt8(ascii: "'")
        let utf8 = text.utf8
        let quotes = utf8.withContiguousStorageIfAvailable { $0.reduce(0) { $1 == quote ? $0 + 1 : $0 } }
            ?? utf8.reduce(0) { $1 == quote ? $0 + 1 : $0 }
        guard quotes > 0 else { return "'" + text + "'" }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(utf8.count + 3 * quotes + 2)
        bytes.append(quote)
        for byte in utf8 {
            if byte == quote {
                bytes += [quote, UInt8(ascii: "\\"), quote, quote]
            } else {
                bytes.append(byte)
            }
        }
        bytes.append(quote)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Which ASCII bytes a plain word may hold.
    private static let plainBytes: [Bool] = (0..<256).map { byte in
        guard byte < 0x80, let scalar = Unicode.Scalar(byte) else { return false }
        return ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || ("0"..."9").contains(scalar)
            || "-_./:@%+=,".unicodeScalars.contains(scalar)
    }
}
