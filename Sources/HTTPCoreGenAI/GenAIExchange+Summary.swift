import HTTPCore
import HTTPCoreText

extension GenAIExchange {
    /// The call at a glance, as the sinks show it beside the answer: model, tokens in and
    /// out, time to the first chunk of a stream, and how it finished.
    ///
    /// `gpt-4o-mini-2024-07-18 · 25 in, 15 out tokens · first chunk 625 ms · stop`;
    /// `claude-sonnet-4-5 · 2,073 in tokens · first chunk 1.2 s · error overloaded_error`.
    /// The model is the one that answered, else the one asked for; a count the provider did not
    /// send is left out (`no usage` when it sent none), never guessed.
    package var summary: String {
        var parts = [response.model ?? request.model ?? "\(recognition.operation.name), model unknown"]
        parts.append(tokenText)
        if isStreaming, let first = response.timeToFirstChunk {
            parts.append("first chunk \(DurationText.format(milliseconds: first * 1000))")
        }
        if let errorType {
            parts.append("error \(errorType)")
        } else if !response.finishReasons.isEmpty {
            parts.append(response.finishReasons.joined(separator: ", "))
        }
        return parts.joined(separator: " · ")
    }

    private var tokenText: String {
        guard let usage = response.usage else { return "no usage" }
        let counts = [usage.inputTokens.map { "\(Self.grouped($0)) in" }, usage.outputTokens.map { "\(Self.grouped($0)) out" }]
            .compactMap { $0 }
        return counts.isEmpty ? "no usage" : "\(counts.joined(separator: ", ")) tokens"
    }

    /// `12345` as `12,345`, the same on every locale.
    private static func grouped(_ count: Int) -> String {
        let digits = String(count.magnitude)
        var text = ""
        for (offset, digit) in digits.enumerated() {
            if offset > 0, (digits.count - offset) % 3 == 0 { text.append(",") }
            text.append(digit)
        }
        return count < 0 ? "-" + text : text
    }
}
