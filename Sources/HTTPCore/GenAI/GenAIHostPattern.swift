/// Which hosts (and ports) a ``GenAIRoute`` answers for, compared case-insensitively and
/// without allocating, since every request's host is checked against the table.
public struct GenAIHostPattern: Sendable, Hashable {
    private enum Kind: Sendable, Hashable {
        case exactly([UInt8])
        case endingWith([UInt8])
        case between(prefix: [UInt8], suffix: [UInt8])
        case anyHost
        case localhost
    }

    private let kind: Kind
    /// The port the host must be reached on; `nil` for any.
    private let port: Int?

    private init(_ kind: Kind, port: Int?) {
        self.kind = kind
        self.port = port
    }

    /// Exactly `name` (`api.openai.com`), on `port` if given.
    public static func host(_ name: String, port: Int? = nil) -> GenAIHostPattern {
        GenAIHostPattern(.exactly(Self.lowercased(name)), port: port)
    }

    /// Any host whose name ends with `suffix`: `.openai.azure.com` for every Azure OpenAI
    /// resource.
    public static func hosts(endingWith suffix: String) -> GenAIHostPattern {
        GenAIHostPattern(.endingWith(Self.lowercased(suffix)), port: nil)
    }

    /// Any host whose name starts with `prefix` and ends with `suffix`:
    /// `bedrock-runtime.` and `.amazonaws.com` for Bedrock in every region.
    public static func hosts(startingWith prefix: String, endingWith suffix: String) -> GenAIHostPattern {
        GenAIHostPattern(.between(prefix: Self.lowercased(prefix), suffix: Self.lowercased(suffix)), port: nil)
    }

    /// Any host reached on `port`: Ollama's 11434, wherever it runs.
    public static func anyHost(port: Int) -> GenAIHostPattern {
        GenAIHostPattern(.anyHost, port: port)
    }

    /// This machine (`localhost`, `127.0.0.1`, `::1`), on `port` if given: a model server
    /// run next to the app.
    public static func localhost(port: Int? = nil) -> GenAIHostPattern {
        GenAIHostPattern(.localhost, port: port)
    }

    /// Whether a request to `host` on `port` (the effective port) is for this pattern.
    func matches(host: String, port: Int?) -> Bool {
        if let required = self.port, required != port { return false }
        let name = host.utf8
        switch kind {
        case .exactly(let expected):
            return name.count == expected.count && Self.equalIgnoringCase(name, expected)
        case .endingWith(let suffix):
            return name.count >= suffix.count && Self.equalIgnoringCase(name.suffix(suffix.count), suffix)
        case .between(let prefix, let suffix):
            return name.count > prefix.count + suffix.count && Self.equalIgnoringCase(name.prefix(prefix.count), prefix)
                && Self.equalIgnoringCase(name.suffix(suffix.count), suffix)
        case .anyHost:
            return true
        case .localhost:
            return Self.localhostNames.contains { name.count == $0.count && Self.equalIgnoringCase(name, $0) }
        }
    }

    private static let localhostNames = ["localhost", "127.0.0.1", "::1", "[::1]"].map { Array($0.utf8) }

    private static func lowercased(_ text: String) -> [UInt8] {
        text.utf8.map(lowercased)
    }

    private static func lowercased(_ byte: UInt8) -> UInt8 {
        byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte
    }

    /// Whether `bytes` equal `lowercase` (already lowercased), ASCII letters compared without case.
    private static func equalIgnoringCase(_ bytes: some Sequence<UInt8>, _ lowercase: [UInt8]) -> Bool {
        var index = 0
        for byte in bytes {
            guard index < lowercase.count, lowercased(byte) == lowercase[index] else { return false }
            index += 1
        }
        return index == lowercase.count
    }
}
