import HTTPCore
/// One row of the table that recognises LLM calls: requests to hosts matching ``host`` that
/// reach an endpoint of ``api`` are calls to ``provider``.
///
/// Adding a provider is one row. A gateway that speaks the OpenAI API, or a model server on
/// this machine, is one too:
///
/// ```swift
/// let recognizer = GenAIRecognizer(additionalRoutes: [
///     .openAICompatible(provider: GenAIProvider("litellm"), host: "llm.internal.example.com", basePath: "/v1"),
///     GenAIRoute(provider: GenAIProvider("vllm"), host: .localhost(port: 8000), api: .openAICompatible()),
/// ])
/// ```
public struct GenAIRoute: Sendable, Hashable {
    /// The value of `gen_ai.provider.name` for calls this row recognises.
    public var provider: GenAIProvider
    /// The hosts it answers for.
    public var host: GenAIHostPattern
    /// The API those hosts speak: the endpoints recognised, and how their bodies read.
    public var api: GenAIAPI

    /// A row: requests to `host` reaching an endpoint of `api` are calls to `provider`.
    public init(provider: GenAIProvider, host: GenAIHostPattern, api: GenAIAPI) {
        self.provider = provider
        self.host = host
        self.api = api
    }

    /// A gateway or server that speaks the OpenAI API at `host` (on `port`, if given) under
    /// `basePath`, reported as `provider`.
    public static func openAICompatible(
        provider: GenAIProvider, host: String, port: Int? = nil, basePath: String = "/v1"
    ) -> GenAIRoute {
        GenAIRoute(provider: provider, host: .host(host, port: port), api: .openAICompatible(basePath: basePath))
    }
}
