import Foundation
import HTTPCore
import HTTPCoreText

/// Tells LLM calls from other requests, by method, host and path, from a table of
/// ``GenAIRoute`` rows: the well-known providers (``GenAIRoute/wellKnown``) and the
/// gateways and local servers you add.
///
/// ```swift
/// let recognizer = GenAIRecognizer(additionalRoutes: [
///     .openAICompatible(provider: GenAIProvider("litellm"), host: "llm.internal.example.com"),
/// ])
/// if let call = recognizer.recognize(request) {
///     print(call.provider, call.operation) // litellm chat
/// }
/// ```
///
/// Cost: a request that is not a `POST` costs one comparison; a `POST` to another host costs
/// its URL's text (`URL.absoluteString`, which Foundation keeps and does not copy), a scan of
/// that text for the host and port and a comparison of bytes per row, without Foundation's
/// parse of either and without allocating: 55 to 116 ns on the benchmark's shared 2-core
/// machine (httpcore-bench section 8). A host that is not plain ASCII, or a URL with
/// userinfo, is read by Foundation (`URL.host`, about 230 ns more).
/// The path is read only when a row's host matches.
public struct GenAIRecognizer: Sendable, Hashable {
    /// The rows, in the order they are tried: the first whose host and endpoint match wins.
    public var routes: [GenAIRoute] { storage.routes }
    private var hosts: GenAIHostTable { storage.hosts }
    /// The rows and their table behind one reference: every policy, and so every event
    /// record, holds a copy of the recognizer, and a copy is then one retain.
    private let storage: Storage

    private final class Storage: Sendable {
        let routes: [GenAIRoute]
        let hosts: GenAIHostTable

        init(routes: [GenAIRoute]) {
            self.routes = routes
            hosts = GenAIHostTable(routes.map(\.host))
        }
    }

    /// A recognizer of the well-known providers.
    public static let standard = GenAIRecognizer()

    /// A recognizer that tries `additionalRoutes` first (so a gateway row can override a
    /// well-known one), then, unless `includesWellKnownRoutes` is `false`, the well-known
    /// providers.
    public init(additionalRoutes: [GenAIRoute] = [], includesWellKnownRoutes: Bool = true) {
        storage = Storage(routes: additionalRoutes + (includesWellKnownRoutes ? GenAIRoute.wellKnown : []))
    }

    /// The LLM call `request` is, or `nil` when it is none.
    @inline(__always)
    public func recognize(_ request: HTTPRequest) -> GenAIRecognition? {
        // Checked here, inlined into the client, so that a request that is not a POST costs
        // a comparison and not a call that reads its URL.
        guard request.method == .post else { return nil }
        return recognize(method: request.method, url: request.url)
    }

    /// The LLM call a request of `method` to `url` is, or `nil` when it is none.
    public func recognize(method: HTTPMethod, url: URL) -> GenAIRecognition? {
        guard method == .post, !matchesNoRow(plainHostIn: url), var host = url.host else { return nil }
        let explicitPort = url.port
        /// Whether the request goes to `port`. Without an explicit port it goes to its
        /// scheme's, 80 or 443, so only those need the scheme read.
        func goesTo(port: Int) -> Bool {
            if let explicitPort { return explicitPort == port }
            return (port == 80 || port == 443) && url.effectivePort == port
        }
        func firstRow(from start: Int) -> Int? {
            host.withUTF8 { hosts.firstMatch(host: $0, from: start, goesTo: goesTo) }
        }
        guard var index = firstRow(from: 0) else { return nil }
        let path = Self.percentEncodedPath(of: url)
        while true {
            let route = routes[index]
            for endpoint in route.api.endpoints where endpoint.method == method {
                let match = endpoint.path.match(path)
                guard match.isMatch else { continue }
                let model = match.model.map { Self.percentDecoded(path.utf8[$0]) }
                return GenAIRecognition(
                    provider: route.provider, operation: endpoint.operation, modelInPath: model,
                    isStreamingEndpoint: endpoint.streamsByPath, serverAddress: host, serverPort: explicitPort ?? url.effectivePort,
                    format: endpoint.format
                )
            }
            guard let next = firstRow(from: index + 1) else { return nil }
            index = next
        }
    }

    /// Whether `url`'s host and port, read from its text where they are plain
    /// (``PlainURLAuthority``), match no row: a request to another host is then told apart
    /// without Foundation's parse of the host or the port, most of what recognising it would
    /// cost. `false` when they are not plain.
    private func matchesNoRow(plainHostIn url: URL) -> Bool {
        var text = url.absoluteString
        return text.withUTF8 { text in
            guard let authority = PlainURLAuthority(text) else { return false }
            let host = UnsafeBufferPointer(rebasing: authority.host)
            return hosts.firstMatch(host: host, from: 0) { port in
                if let explicitPort = authority.explicitPort { return explicitPort == port }
                return (port == 80 || port == 443) && url.effectivePort == port
            } == nil
        }
    }

    /// `bytes` with `%XX` escapes decoded (Foundation's `removingPercentEncoding` costs
    /// several times the rest of recognition); an escape that is not one stays as it is.
    private static func percentDecoded(_ bytes: Substring.UTF8View) -> String {
        guard bytes.contains(UInt8(ascii: "%")) else { return String(Substring(bytes)) }
        var decoded: [UInt8] = []
        decoded.reserveCapacity(bytes.count)
        var index = bytes.startIndex
        while index < bytes.endIndex {
            let byte = bytes[index]
            if byte == UInt8(ascii: "%"), bytes.distance(from: index, to: bytes.endIndex) >= 3,
                let high = HexDigit.value(bytes[bytes.index(index, offsetBy: 1)]), let low = HexDigit.value(bytes[bytes.index(index, offsetBy: 2)])
            {
                decoded.append(high << 4 | low)
                index = bytes.index(index, offsetBy: 3)
            } else {
                decoded.append(byte)
                index = bytes.index(after: index)
            }
        }
        return String(decoding: decoded, as: UTF8.self)
    }

    /// The path as sent, so that a model id's encoded `/` or `:` stays inside its segment.
    private static func percentEncodedPath(of url: URL) -> String {
        if #available(macOS 13, iOS 16, tvOS 16, watchOS 9, *) { return url.path(percentEncoded: true) }
        return URLComponents(url: url, resolvingAgainstBaseURL: false)?.percentEncodedPath ?? url.path
    }
}

extension GenAIRecognizer {
    /// Recognizers are equal when their rows are, in the same order.
    public static func == (lhs: GenAIRecognizer, rhs: GenAIRecognizer) -> Bool {
        lhs.storage === rhs.storage || lhs.routes == rhs.routes
    }

    /// Hashes the rows.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(routes)
    }
}
