/// The value of one OpenTelemetry attribute, in the types the GenAI convention uses.
public enum GenAIAttributeValue: Sendable, Hashable {
    /// A string, such as `gen_ai.request.model`.
    case string(String)
    /// An integer, such as `gen_ai.usage.input_tokens`.
    case int(Int)
    /// A double, such as `gen_ai.request.temperature`.
    case double(Double)
    /// A boolean: `gen_ai.request.stream`.
    case bool(Bool)
    /// A list of strings, such as `gen_ai.response.finish_reasons`.
    case stringArray([String])
}
