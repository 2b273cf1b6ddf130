import HTTPCore
/// One LLM endpoint of an API: the method and path that reach it, what it does and how its
/// body reads.
struct GenAIEndpoint: Sendable, Hashable {
    let method: HTTPMethod
    let path: GenAIPathTemplate
    let operation: GenAIOperation
    let format: GenAIWireFormat
    /// Whether the path itself asks for a stream (`streamGenerateContent`, `converse-stream`,
    /// `generate_stream`), whatever the body says.
    let streamsByPath: Bool

    init(_ path: String, _ operation: GenAIOperation, _ format: GenAIWireFormat, streamsByPath: Bool = false) {
        method = .post
        self.path = GenAIPathTemplate(path)
        self.operation = operation
        self.format = format
        self.streamsByPath = streamsByPath
    }
}
