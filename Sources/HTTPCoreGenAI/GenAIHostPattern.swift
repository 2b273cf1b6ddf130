import HTTPCore
/// Which hosts (and ports) a ``GenAIRoute`` answers for, compared case-insensitively.
///
/// Every request's host is checked against every row, so ``GenAIRecognizer`` compares them
/// through a flat table of their bytes, without allocating or retaining.
package struct GenAIHostPattern: Sendable, Hashable {
    /// What the host must start with, lowercased.
    let prefix: [UInt8]
    /// What the host must end with, lowercased.
    let suffix: [UInt8]
    /// Whether the host must be exactly ``suffix``.
    let isExact: Bool
    /// Whether the host must name this machine.
    let isLocalhost: Bool
    /// The port the host must be reached on; `nil` for any.
    let port: Int?

    private init(prefix: String = "", suffix: String = "", isExact: Bool = false, isLocalhost: Bool = false, port: Int? = nil) {
        self.prefix = Self.lowercased(prefix)
        self.suffix = Self.lowercased(suffix)
        self.isExact = isExact
        self.isLocalhost = isLocalhost
        self.port = port
    }

    /// Exactly `name` (`api.openai.com`), on `port` if given.
    package static func host(_ name: String, port: Int? = nil) -> GenAIHostPattern {
        GenAIHostPattern(suffix: name, isExact: true, port: port)
    }

    /// Any host whose name ends with `suffix`: `.openai.azure.com` for every Azure OpenAI
    /// resource.
    package static func hosts(endingWith suffix: String) -> GenAIHostPattern {
        GenAIHostPattern(suffix: suffix)
    }

    /// Any host whose name starts with `prefix` and ends with `suffix`:
    /// `bedrock-runtime.` and `.amazonaws.com` for Bedrock in every region.
    package static func hosts(startingWith prefix: String, endingWith suffix: String) -> GenAIHostPattern {
        GenAIHostPattern(prefix: prefix, suffix: suffix)
    }

    /// Any host reached on `port`: Ollama's 11434, wherever it runs.
    package static func anyHost(port: Int) -> GenAIHostPattern {
        GenAIHostPattern(port: port)
    }

    /// This machine (`localhost`, `127.0.0.1`, `::1`), on `port` if given: a model server
    /// run next to the app.
    package static func localhost(port: Int? = nil) -> GenAIHostPattern {
        GenAIHostPattern(isLocalhost: true, port: port)
    }

    private static func lowercased(_ text: String) -> [UInt8] {
        text.utf8.map { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") ? $0 | 0x20 : $0 }
    }
}
