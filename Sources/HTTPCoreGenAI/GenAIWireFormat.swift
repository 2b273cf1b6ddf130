import HTTPCore
/// The body format of one LLM endpoint: which fields its request carries its parameters in.
enum GenAIWireFormat: Sendable, Hashable {
    case openAIChat, openAICompletions, openAIResponses, openAIEmbeddings
    case anthropicMessages
    case geminiGenerateContent, geminiEmbedContent
    case bedrockConverse, bedrockInvoke
    case textGenerationInference
    case ollamaChat, ollamaGenerate, ollamaEmbed
}
