import Foundation
import HTTPCore
import HTTPCoreObservation
import HTTPCoreText

/// The interpreter that tells LLM calls from other requests, by method, host and path, and
/// derives each one's facts (`event.genAI`): the well-known providers, and the gateways and
/// local servers you add as ``GenAIRoute`` rows.
///
/// Use it on the policy, as `.genAI` for the well-known
/// providers, or made with your rows:
///
/// ```swift
/// let policy = HTTPCorePolicy.default.interpreting(GenAIRecognizer(additionalRoutes: [
///     GenAIRoute(provider: GenAIProvider("litellm"), host: "llm.internal.example.com", api: .openAICompatible()),
/// ]))
/// ```
///
/// A request that is not a `POST` is told apart with one comparison, a `POST` to another host
/// by comparing the bytes of its URL's host with each row's, without allocating; the path is
/// read only when a row's host matches (Performance.md gives the measured costs).
public struct GenAIRecognizer: Sendable, Hashable {
    /// The rows, in the order they are tried: the first whose host and endpoint match wins.
    package var routes: [GenAIRoute] { storage.routes }
    private var hosts: GenAIHostTable { storage.hosts }
    /// The rows and their table behind one reference: every policy, and so every event
    /// record, holds a copy of the recognizer, and a copy is then one retain.
    private let storage: Storage

    /// Recognizers are equal when their rows are, in the same order; one storage is equal to
    /// itself without comparing them.
    private final class Storage: Sendable, Hashable {
        let routes: [GenAIRoute]
        let hosts: GenAIHostTable

        init(routes: [GenAIRoute]) {
            self.routes = routes
            hosts = GenAIHostTable(routes.map(\.host))
        }

        static func == (lhs: Storage, rhs: Storage) -> Bool {
            lhs === rhs || lhs.routes == rhs.routes
        }

        func hash(into hasher: inout Hasher) {
            hasher.combine(routes)
        }
    }

    /// A recognizer of the well-known providers (`.genAI`).
    package static let standard = GenAIRecognizer()

    /// A recognizer that tries `additionalRoutes` first, so that a gateway's row can take the
    /// place of a well-known one, then the well-known providers: OpenAI, Anthropic, Gemini
    /// (AI Studio and Vertex AI), Azure OpenAI, AWS Bedrock, Groq, DeepSeek, Mistral AI, xAI,
    /// Perplexity, Hugging Face Inference Endpoints and Ollama on port 11434.
    ///
    /// - Parameter additionalRoutes: The rows of your gateways and model servers; none by
    ///   default.
    public init(additionalRoutes: [GenAIRoute] = []) {
        self.init(additionalRoutes: additionalRoutes, includesWellKnownRoutes: true)
    }

    /// A recognizer that tries `additionalRoutes`, then, unless `includesWellKnownRoutes` is
    /// `false`, the well-known providers.
    package init(additionalRoutes: [GenAIRoute], includesWellKnownRoutes: Bool) {
        storage = Storage(routes: additionalRoutes + (includesWellKnownRoutes ? GenAIRoute.wellKnown : []))
    }

    /// The LLM call `request` is, or `nil` when it is none.
    @inline(__always)
    package func recognize(_ request: HTTPRequest) -> GenAIRecognition? {
        // Checked here, inlined into the client, so that a request that is not a POST costs
        // a comparison and not a call that reads its URL.
        guard request.method == .post else { return nil }
        return recognize(method: request.method, url: request.url)
    }

    /// The LLM call a request of `method` to `url` is, or `nil` when it is none.
    package func recognize(method: HTTPMethod, url: URL) -> GenAIRecognition? {
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
