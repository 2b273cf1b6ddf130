import HTTPCoreText

extension GenAIExchange {
    /// Writes ``attributes`` as one JSON object of the convention's names to their values, in
    /// their order: `{"gen_ai.provider.name":"anthropic",…,"gen_ai.usage.output_tokens":15}`.
    /// The one writer of the attributes for the sinks that store them (dev-see's `genAI`,
    /// HAR's `_genAI`).
    package func writeAttributes(to writer: inout JSONWriter) {
        writer.beginObject()
        for attribute in attributes {
            writer.key(attribute.name)
            attribute.value.write(to: &writer)
        }
        writer.endObject()
    }
}

extension GenAIAttributeValue {
    /// Writes the value as JSON: a string, a number (`null` when not finite), a boolean or an
    /// array of strings.
    package func write(to writer: inout JSONWriter) {
        switch self {
        case .string(let value): writer.string(value)
        case .int(let value): writer.integer(value)
        case .double(let value): writer.number(value)
        case .bool(let value): writer.bool(value)
        case .stringArray(let values):
            writer.beginArray()
            for value in values { writer.string(value) }
            writer.endArray()
        }
    }
}
