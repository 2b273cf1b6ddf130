import Foundation

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
/// Cost: a request that is not an LLM call costs a host comparison per row and no
/// allocation once its URL's host is read; the path is read only when a row's host matches.
public struct GenAIRecognizer: Sendable, Hashable {
    /// The rows, in the order they are tried: the first whose host and endpoint match wins.
    public var routes: [GenAIRoute]

    /// A recognizer of the well-known providers.
    public static let standard = GenAIRecognizer()

    /// A recognizer that tries `additionalRoutes` first (so a gateway row can override a
    /// well-known one), then, unless `includesWellKnownRoutes` is `false`, the well-known
    /// providers.
    public init(additionalRoutes: [GenAIRoute] = [], includesWellKnownRoutes: Bool = true) {
        routes = additionalRoutes + (includesWellKnownRoutes ? GenAIRoute.wellKnown : [])
    }

    /// The LLM call `request` is, or `nil` when it is none.
    public func recognize(_ request: HTTPRequest) -> GenAIRecognition? {
        recognize(method: request.method, url: request.url)
    }

    /// The LLM call a request of `method` to `url` is, or `nil` when it is none.
    public func recognize(method: HTTPMethod, url: URL) -> GenAIRecognition? {
        guard method == .post, let host = url.host else { return nil }
        let port = url.effectivePort
        guard routes.contains(where: { $0.host.matches(host: host, port: port) }) else { return nil }
        let path = URLComponents(url: url, resolvingAgainstBaseURL: false)?.percentEncodedPath ?? url.path
        for route in routes where route.host.matches(host: host, port: port) {
            for endpoint in route.api.endpoints where endpoint.method == method {
                let match = endpoint.path.match(path)
                guard match.isMatch else { continue }
                let model = match.model.map { String(path[$0]) }.map { $0.removingPercentEncoding ?? $0 }
                return GenAIRecognition(
                    provider: route.provider, operation: endpoint.operation, modelInPath: model,
                    isStreamingEndpoint: endpoint.streamsByPath, serverAddress: host, serverPort: port, format: endpoint.format
                )
            }
        }
        return nil
    }
}
