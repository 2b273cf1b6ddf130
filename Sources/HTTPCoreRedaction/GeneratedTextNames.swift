/// Where LLM APIs use `token` for a piece of generated text, not a credential: the one place
/// that exception is written.
///
/// - As a stream event's name: `event: token` (Hugging Face TGI and servers like it) carries
///   generated text, so its data is judged as any data, not as a secret's.
/// - As a key under log probabilities: `logprobs.content[].token` (OpenAI chat) and the
///   legacy completions' `logprobs.tokens` hold the generated tokens.
/// - As the name of Hugging Face TGI's token objects: `"token": {"id": 578, "text": " the",
///   "logprob": -0.1, "special": false}`, and arrays of them under `tokens` and `top_tokens`.
///   An object of exactly those four members is generated text, not a secret's parts.
enum GeneratedTextNames {
    /// The names that mean generated text in those places, in any case and spelling.
    private static let tokenNames = FlatNames(["token", "tokens"].map { Array($0.utf8) })

    /// The names TGI gives its token objects (folded as a ``NameKey``'s letters).
    private static let tokenObjectNames = FlatNames(["token", "tokens", "toptokens"].map { Array($0.utf8) })

    /// The members of a TGI token object, spelled as TGI writes them.
    private static let tokenObjectMembers = ["id", "text", "logprob", "special"].map { Array($0.utf8) }

    /// How many members a TGI token object has.
    static var tokenObjectMemberCount: Int { tokenObjectMembers.count }

    /// Whether a stream event's name means generated text.
    static func isGeneratedTextEvent(_ key: NameKey) -> Bool {
        tokenNames.contains(key.letters, hash: key.hash)
    }

    /// Whether a JSON key (ASCII, without escapes, `byteCount` bytes as written), under log
    /// probabilities, names generated text.
    static func isGeneratedTextKey(_ key: NameKey, byteCount: Int) -> Bool {
        byteCount <= 6 && tokenNames.contains(key.letters, hash: key.hash)
    }

    /// Whether a JSON key (ASCII, without escapes, `byteCount` bytes as written) is a name TGI
    /// gives its token objects: `token`, `tokens`, `top_tokens`.
    static func isTokenObjectKey(_ key: NameKey, byteCount: Int) -> Bool {
        byteCount <= 10 && tokenObjectNames.contains(key.letters, hash: key.hash)
    }

    /// Which of a TGI token object's members (`id`, `text`, `logprob`, `special`, counted from
    /// 0) a raw JSON key is; `nil` for any other key.
    static func tokenObjectMember(_ key: Slice<UnsafeBufferPointer<UInt8>>) -> Int? {
        tokenObjectMembers.firstIndex { $0.elementsEqual(key) }
    }

    /// Whether a raw JSON key names log probabilities: `logprobs`, `top_logprobs`, `logprob`.
    static func isLogProbabilitiesKey(_ key: Slice<UnsafeBufferPointer<UInt8>>) -> Bool {
        guard key.count >= 7, key.count <= 16 else { return false }
        let pattern: StaticString = "logprob"
        let letters = UnsafeBufferPointer(start: pattern.utf8Start, count: pattern.utf8CodeUnitCount)
        var start = key.startIndex
        while start + letters.count <= key.endIndex {
            if key[start] == letters[0], (1..<letters.count).allSatisfy({ key[start + $0] == letters[$0] }) { return true }
            start += 1
        }
        return false
    }
}
