import HTTPCore
/// One row of the table that recognises LLM calls: requests to a host that reach an endpoint
/// of an API are calls to a provider.
///
/// A gateway that speaks the OpenAI API, or a model server on this machine, is one row of
/// ``GenAIRecognizer/init(additionalRoutes:)``:
///
/// ```swift
/// let recognizer = GenAIRecognizer(additionalRoutes: [
///     GenAIRoute(provider: GenAIProvider("litellm"), host: "llm.internal.example.com", api: .openAICompatible()),
///     GenAIRoute(provider: GenAIProvider("vllm"), host: "localhost", port: 8000, api: .openAICompatible()),
/// ])
/// ```
public struct GenAIRoute: Sendable, Hashable {
    /// The value of `gen_ai.provider.name` for calls this row recognises.
    package var provider: GenAIProvider
    /// The hosts it answers for.
    package var host: GenAIHostPattern
    /// The API those hosts speak: the endpoints recognised, and how their bodies read.
    package var api: GenAIAPI

    /// A row: requests to `host` (on `port`, when given) that reach an endpoint of `api` are
    /// calls to `provider`.
    ///
    /// - Parameters:
    ///   - provider: The value of `gen_ai.provider.name` for these calls: the convention's
    ///     well-known value where one applies (`openai` for a proxy of OpenAI's API), else a
    ///     lowercase name of your own.
    ///   - host: The host the requests go to, compared without case: `llm.internal.example.com`,
    ///     `localhost`.
    ///   - port: The port they go to, explicit or the scheme's; `nil`, the default, for any.
    ///   - api: The API the host speaks.
    public init(provider: GenAIProvider, host: String, port: Int? = nil, api: GenAIAPI) {
        self.init(provider: provider, host: .host(host, port: port), api: api)
    }

    /// A row: requests to hosts matching `host` that reach an endpoint of `api` are calls to
    /// `provider`.
    package init(provider: GenAIProvider, host: GenAIHostPattern, api: GenAIAPI) {
        self.provider = provider
        self.host = host
        self.api = api
    }

    /// A gateway or server that speaks the OpenAI API at `host` (on `port`, if given) under
    /// `basePath`, reported as `provider`.
    package static func openAICompatible(
        provider: GenAIProvider, host: String, port: Int? = nil, basePath: String = "/v1"
    ) -> GenAIRoute {
        GenAIRoute(provider: provider, host: host, port: port, api: .openAICompatible(basePath: basePath))
    }
}
