import HTTPCore
/// A request recognised as an LLM call: who serves it, what it does, and what its URL says.
///
/// Made by ``GenAIRecognizer``; read its body with ``GenAIRequestParameters`` and its
/// response with ``GenAIResponseReader``.
package struct GenAIRecognition: Sendable, Hashable {
    /// `gen_ai.provider.name`.
    package var provider: GenAIProvider
    /// `gen_ai.operation.name`.
    package var operation: GenAIOperation
    /// The model the path names (Gemini, an Azure deployment, a Bedrock model id),
    /// percent-decoded; `nil` when the model is in the body.
    package var modelInPath: String?
    /// Whether the path asks for a stream (`streamGenerateContent`, `converse-stream`,
    /// `generate_stream`, `invoke-with-response-stream`).
    package var isStreamingEndpoint: Bool
    /// `server.address`: the host the request went to.
    package var serverAddress: String
    /// `server.port`: the port it went to, explicit or the scheme's.
    package var serverPort: Int?
    /// The body format of the endpoint.
    let format: GenAIWireFormat
}
