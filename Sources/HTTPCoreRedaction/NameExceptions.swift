/// Where a name that reads as a secret's holds ordinary content, as a protocol spoken over
/// HTTP defines it: the way another module (an interpreter of that traffic) tells the engine,
/// which itself knows no protocol's exceptions. Without any, a secret's name judges what it
/// holds wherever it stands.
///
/// The rule for a stream event named `token` (or `tokens`, in any case), decided here because
/// the name means two things: an LLM server's piece of generated text (Hugging Face TGI's
/// `event: token`) and a credential pushed over server-sent events (a session or refresh
/// token sent to a browser). The stream says nothing of which it is; an interpreter of the
/// traffic does.
/// - With no exceptions (no interpreter, the GenAI one off), `event: token` is a secret's name
///   and its data is masked as a body key's value of that name is: text whole (`[REDACTED]`),
///   JSON value by value, every member of it at any depth but those that describe a secret
///   (`token_type`, `expires_in`, `id`). Masking generated text costs a reader the answer;
///   showing a credential costs the account, so without knowledge the engine masks.
/// - With the exceptions `GenAIRecognizer` gives (``eventNames`` `token` and `tokens`), its data
///   is judged as the data of an unnamed event: plain text kept but for what the text rules
///   find (a `Bearer` credential, a provider's key), JSON by its own keys (an `api_key` in it
///   is still masked).
/// - Other names are not affected either way: `event: session_token` is masked with the
///   exceptions too, and `event: token_count` is ordinary without them.
///
/// Three kinds, each judged as the engine would judge the content under an ordinary name:
/// - stream events whose name is one of ``eventNames``: their data is judged as any data;
/// - keys inside a container (``Container``): under a key whose raw bytes contain the
///   container's fragment, its ordinary keys are judged by the level, not as a secret's;
/// - objects of a fixed shape (``ObjectShape``): under one of its holder keys, an object of
///   exactly its members, each once, is read as any object, not as a secret's parts.
///
/// A policy's redactor carries the exceptions its interpreters give
/// (``NameExceptionsProviding``); they do not take part in the redactor's equality.
package struct NameExceptions: Sendable {
    /// Keys that hold ordinary content inside a container.
    package struct Container: Sendable {
        /// The raw bytes a container's key contains, compared exactly.
        let fragment: [UInt8]
        /// The longest container key, in raw bytes.
        let maximumKeyBytes: Int
        /// The keys ordinary inside it, folded as a ``NameKey``'s letters.
        let keys: FlatNames
        /// The longest spelling of those keys, in raw bytes: a longer one is none of them.
        let maximumOrdinaryKeyBytes: Int

        /// Under a key of at most `maximumKeyBytes` bytes that contains `fragment`, the keys
        /// spelled as `ordinaryKeys` (in any case) are judged by the level.
        package init(keyContaining fragment: String, maximumKeyBytes: Int, ordinaryKeys: [String]) {
            self.fragment = Array(fragment.utf8)
            self.maximumKeyBytes = maximumKeyBytes
            keys = FlatNames(ordinaryKeys.map(NameExceptions.folded))
            maximumOrdinaryKeyBytes = ordinaryKeys.map(\.utf8.count).max() ?? 0
        }

        /// Whether `raw`, a key's bytes as written, names the container.
        func isNamed(byRaw raw: Slice<UnsafeBufferPointer<UInt8>>) -> Bool {
            guard raw.count >= fragment.count, raw.count <= maximumKeyBytes, let first = fragment.first else { return false }
            var start = raw.startIndex
            while start + fragment.count <= raw.endIndex {
                if raw[start] == first, (1..<fragment.count).allSatisfy({ raw[start + $0] == fragment[$0] }) { return true }
                start += 1
            }
            return false
        }
    }

    /// An object read as any object under its holders' keys when it has exactly its members.
    package struct ObjectShape: Sendable {
        /// The keys it may stand under, folded as a ``NameKey``'s letters.
        let holders: FlatNames
        /// The longest spelling of those keys, in raw bytes.
        let maximumHolderKeyBytes: Int
        /// Its members, spelled exactly.
        let members: [[UInt8]]

        /// Under a key spelled as one of `holders` (in any case), an object whose members are
        /// `members`, each once and spelled exactly so, and nothing else.
        package init(members: [String], under holders: [String]) {
            precondition(members.count <= 64, "a shape's members are tracked in one 64-bit mask")
            self.holders = FlatNames(holders.map(NameExceptions.folded))
            maximumHolderKeyBytes = holders.map(\.utf8.count).max() ?? 0
            self.members = members.map { Array($0.utf8) }
        }
    }

    /// Event names whose data is judged as any data, folded as a ``NameKey``'s letters.
    private(set) var eventNames: FlatNames
    /// The folded event names, kept to merge them.
    private var eventNameLetters: [[UInt8]]
    /// The containers, at most eight: a key's facts tell them apart in one byte.
    private(set) var containers: [Container]
    /// The object shapes, at most eight.
    private(set) var shapes: [ObjectShape]

    /// No exception: every name judged by its own rule.
    package static let none = NameExceptions()

    /// Exceptions of these kinds.
    ///
    /// - Parameters:
    ///   - eventNames: Stream event names whose data is judged as any data (in any case).
    ///   - containers: Keys ordinary inside containers; at most eight.
    ///   - shapes: Objects of a fixed shape; at most eight.
    package init(eventNames: [String] = [], containers: [Container] = [], shapes: [ObjectShape] = []) {
        precondition(containers.count <= 8 && shapes.count <= 8, "a key's facts tell eight containers and eight shapes apart")
        eventNameLetters = eventNames.map(Self.folded)
        self.eventNames = FlatNames(eventNameLetters)
        self.containers = containers
        self.shapes = shapes
    }

    /// Whether there is none, so that keys need not be checked.
    var isEmpty: Bool { eventNameLetters.isEmpty && containers.isEmpty && shapes.isEmpty }

    /// These exceptions and `other`'s.
    package func merged(with other: NameExceptions) -> NameExceptions {
        guard !other.isEmpty else { return self }
        guard !isEmpty else { return other }
        var merged = NameExceptions()
        merged.eventNameLetters = eventNameLetters + other.eventNameLetters
        merged.eventNames = FlatNames(merged.eventNameLetters)
        merged.containers = Array((containers + other.containers).prefix(8))
        merged.shapes = Array((shapes + other.shapes).prefix(8))
        return merged
    }

    /// Whether a stream event of this name carries data judged as any data.
    func isOrdinaryEvent(_ key: NameKey) -> Bool {
        eventNames.contains(key.letters, hash: key.hash)
    }

    /// The containers a key names (bit `n` for ``containers```[n]`), from its raw bytes.
    func containers(namedByRaw raw: Slice<UnsafeBufferPointer<UInt8>>) -> UInt8 {
        var named: UInt8 = 0
        for (index, container) in containers.enumerated() where container.isNamed(byRaw: raw) { named |= 1 << index }
        return named
    }

    /// The containers inside which a key (ASCII, without escapes, `byteCount` bytes as
    /// written) is ordinary.
    func containers(whereOrdinary key: NameKey, byteCount: Int) -> UInt8 {
        var ordinary: UInt8 = 0
        for (index, container) in containers.enumerated()
        where byteCount <= container.maximumOrdinaryKeyBytes && container.keys.contains(key.letters, hash: key.hash) {
            ordinary |= 1 << index
        }
        return ordinary
    }

    /// The shapes whose objects a key (ASCII, without escapes, `byteCount` bytes as written)
    /// may hold.
    func shapes(heldBy key: NameKey, byteCount: Int) -> UInt8 {
        var held: UInt8 = 0
        for (index, shape) in shapes.enumerated()
        where byteCount <= shape.maximumHolderKeyBytes && shape.holders.contains(key.letters, hash: key.hash) {
            held |= 1 << index
        }
        return held
    }

    /// `name` folded as a ``NameKey``'s letters.
    private static func folded(_ name: String) -> [UInt8] {
        NameKey.with(name) { Array($0.letters) }
    }
}

/// Something that knows where names that read as secrets' hold ordinary content in the traffic
/// it reads: an interpreter of a protocol, whose exceptions the policy's redactor takes.
package protocol NameExceptionsProviding {
    /// The exceptions.
    var nameExceptions: NameExceptions { get }
}

/// A value a redactor carries beside its configuration, left out of its equality: two
/// redactors of the same level and lists are equal, and so are two policies made with them.
struct Uncompared<Value: Sendable>: Sendable, Hashable {
    var value: Value

    static func == (lhs: Uncompared, rhs: Uncompared) -> Bool { true }

    func hash(into hasher: inout Hasher) {}
}
