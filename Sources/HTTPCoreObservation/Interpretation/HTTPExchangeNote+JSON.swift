import HTTPCoreText

extension HTTPExchangeNote {
    /// Writes ``attributes`` as one JSON object of their names to their values, in order:
    /// `{"gen_ai.provider.name":"anthropic",…,"gen_ai.usage.output_tokens":15}`. The one
    /// writer of a note's attributes for the sinks that store them (dev-see, HAR).
    package func writeAttributes(to writer: inout JSONWriter) {
        writer.beginObject()
        for attribute in attributes {
            writer.key(attribute.name)
            attribute.value.write(to: &writer)
        }
        writer.endObject()
    }
}

extension HTTPExchangeNote.Value {
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

    /// The value as one line of text, as a log field or a metric dimension shows it: a number
    /// or a boolean as Swift prints it, a list joined with commas.
    public var text: String {
        switch self {
        case .string(let value): value
        case .int(let value): String(value)
        case .double(let value): String(value)
        case .bool(let value): String(value)
        case .stringArray(let values): values.joined(separator: ",")
        }
    }
}
