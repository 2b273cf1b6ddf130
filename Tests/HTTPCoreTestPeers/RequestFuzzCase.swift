import Foundation
import HTTPCore
import HTTPCoreTesting

/// One random, often adversarial, request for a transport under test, made from a seed and an
/// index alone, so that a child process makes the very case its parent names.
///
/// Every URL it makes points at loopback (the fuzz server's port, a closed port, or a host
/// the validation refuses): no case sends traffic anywhere else.
public struct RequestFuzzCase: Sendable, CustomStringConvertible {
    /// How the case is sent.
    public enum API: String, Sendable, CaseIterable {
        /// `send(_:)`, the whole response at once.
        case buffered
        /// `send(_:body:receive:)`, the body read as it streams.
        case streamed
    }

    /// Where the exchange is cancelled, if anywhere.
    public enum Cancellation: String, Sendable, CaseIterable {
        case never
        /// Before `send` is called: the task starts cancelled.
        case beforeSend
        /// When the observer sees each of these events.
        case atCreated, atStarted, atReceived
        /// Inside `receive`, before the body is read (the streaming API only).
        case beforeBody
        /// After the first chunk of the body (the streaming API only).
        case afterFirstChunk
    }

    /// What request body is sent.
    public enum Body: Sendable, CustomStringConvertible {
        case none
        case bytes(Int)
        /// A streamed body that throws after this many chunks (the streaming API only).
        case throwing(afterChunks: Int)
        /// A streamed body that can be read once.
        case single(Int)

        public var description: String {
            switch self {
            case .none: "none"
            case .bytes(let count): "\(count) bytes"
            case .throwing(let chunks): "throws after \(chunks) chunks"
            case .single(let count): "single-pass \(count) bytes"
            }
        }
    }

    /// The case's position in its run.
    public let index: Int
    public let urlText: String
    public let method: HTTPMethod
    public let headers: [(name: String, value: String)]
    public let timeout: TimeInterval?
    public let body: Body
    public let api: API
    public let cancellation: Cancellation

    /// The request the case sends; `nil` when Foundation cannot parse ``urlText`` (the case
    /// then checks only that building it does not trap).
    public var request: HTTPRequest? {
        guard let url = URL(string: urlText) else { return nil }
        var request = HTTPRequest(method: method, url: url, timeout: timeout)
        for header in headers { request.headers.add(name: header.name, value: header.value) }
        if case .bytes(let count) = body, api == .buffered { request.body = Data(repeating: 0x61, count: count) }
        return request
    }

    /// A one-line description that names the case well enough to make it again by hand.
    public var description: String {
        let shownHeaders = headers.map { "\($0.name.debugDescription): \($0.value.debugDescription)" }.joined(separator: ", ")
        return "#\(index) \(api) \(method) \(urlText.debugDescription) timeout \(timeout.map { "\($0)" } ?? "nil") "
            + "body \(body) cancel \(cancellation.rawValue) headers [\(shownHeaders)]"
    }

    /// The case at `index` of the run seeded with `seed`, aimed at a server on `port`.
    public init(index: Int, seed: UInt64, port: UInt16) {
        var random = SeededRandomNumberGenerator(seed: seed &+ UInt64(index) &* 0x9E37_79B9)
        func pick<T>(_ values: [T]) -> T { values[random.next(below: values.count)] }
        self.index = index
        // Most cases are valid requests to the server, some with one flaw; the rest are
        // adversarial through and through.
        let flaw = random.next(below: 10)
        let isSound = flaw < 6
        let scheme = isSound || flaw == 6 ? pick(["http", "HTTP"]) : pick(["https", "ftp", "ws", "file", "", "h t t p", "http+unix"])
        let host = isSound || flaw == 7
            ? pick(["127.0.0.1", "127.0.0.1", "localhost", "[::1]"])
            : pick(["", "127.0.0.1%00", "exa%20mple", "%0d%0a", "127.0.0.1@127.0.0.1"])
        let closedPort = 1  // tcpmux: nothing listens on loopback here
        let port = isSound || flaw == 8
            ? pick(["\(port)", "\(port)", "\(port)", "\(closedPort)"])
            : pick(["99999", "65536", "0", "-1", "999999999999999999999999", "", "abc", "8o"])
        let path = pick([
            "/echo", "/echo", "/stream", "/stream", "/slow", "/status", "/missing", "/redirect", "", "/%00", "/a%0d%0ab", "/é",
            "/echo?q=1&token=s3cr3t", "/echo#fragment", "/../../etc/passwd",
            isSound ? "/echo" : "/" + String(repeating: "a", count: 70_000),
        ])
        let separator = isSound || scheme.isEmpty ? (scheme.isEmpty ? "" : "://") : pick(["://", "://", ":", ":/", "//"])
        let url = "\(scheme)\(separator)\(host)\(port.isEmpty ? "" : ":" + port)\(path)"
        urlText = isSound || flaw != 9 ? url : pick(["users/1", "http://", "http:", "//127.0.0.1/echo"])
        method = pick([.get, .get, .post, .put, .head, .delete, .options, .trace, .patch, .connect, HTTPMethod("PURGE")!, HTTPMethod("X-CUSTOM")!])
        let soundNames = ["X-Fuzz", "Content-Type", "Authorization", "Accept"]
        let names = ["X Space", "", "X-\r\nInjected", "Ä", "Content-Length", "Transfer-Encoding", "Host"]
        let soundValues = ["1", "application/json", "Bearer s3cr3t", "tab\there", "café", "", String(repeating: "v", count: 9_000)]
        let values = ["a\r\nX-Injected: 1", "\u{0}", "chunked", "-5", "x\u{7F}"]
        var headers: [(name: String, value: String)] = []
        for _ in 0..<random.next(below: 4) {
            let sound = isSound && random.next(below: 4) > 0
            headers.append((
                name: sound ? pick(soundNames) : pick(names + soundNames),
                value: sound ? pick(soundValues) : pick(values + soundValues)
            ))
        }
        self.headers = headers
        timeout = random.next(below: 10) > 0 ? pick([nil, nil, 30, 30, 0.05, 0.001, .infinity, 1e300]) : pick([0, -1, .nan, -.infinity])
        api = pick(API.allCases)
        let bodies: [Body] = api == .buffered
            ? [.none, .none, .bytes(0), .bytes(5), .bytes(70_000)]
            : [.none, .bytes(5), .throwing(afterChunks: 0), .throwing(afterChunks: 2), .single(5), .bytes(70_000)]
        body = pick(bodies)
        let cancellations: [Cancellation] = api == .buffered
            ? [.never, .never, .never, .beforeSend, .atCreated, .atStarted, .atReceived]
            : [.never, .never, .never, .beforeSend, .atCreated, .atStarted, .atReceived, .beforeBody, .afterFirstChunk]
        cancellation = pick(cancellations)
    }
}
