/// A provider's credential format, written from the provider's documentation: the bytes it
/// starts with and what follows them. A secret of this shape is masked wherever it stands (free
/// text, JSON string values, header values, URL query values and path segments, stream deltas)
/// at `.standard` and `.strict`, whatever name it is under.
///
/// A word matches when it starts with a row's prefix followed by a run of the row's alphabet
/// whose length is in the row's range, one of its bytes a digit or a capital (generated secrets
/// have one; prose such as `sk-learn-…` does not). A run longer than an exact or bounded
/// length is another word, not this secret. The whole word is then masked, so a secret's tail
/// is never left visible after a byte its alphabet lacks (`xapp-…/…`).
///
/// Identifiers that are not secrets (Stripe's `cus_…`, `tok_…`, Twilio's `AC…` SIDs, OpenAI's
/// `chatcmpl-…`) are not listed. Adding a format is one row of ``all``; ``SecretFormatIndex``
/// finds every row's prefix in one pass, whatever the table's size.
struct KnownSecretFormat: Sendable {
    /// The provider and the kind of secret.
    let name: String
    /// The bytes the secret starts with, matched with case.
    let prefix: [UInt8]
    /// What follows the prefix.
    let body: Body
    /// Bytes the secret must hold after its prefix (Stripe's `_secret_`), if any.
    let infix: [UInt8]?
    /// How many ASCII digits stand before the prefix (Telegram's bot id before `:AA`), if any.
    let leadingDigits: ClosedRange<Int>?

    /// A row whose prefix is followed by a run of `alphabet` bytes, `length` of them.
    ///
    /// - Parameters:
    ///   - name: The provider and the kind of secret.
    ///   - prefix: The bytes the secret starts with, matched with case.
    ///   - length: How many bytes of `alphabet` follow the prefix.
    ///   - alphabet: The bytes that may follow the prefix.
    ///   - infix: Bytes the run must hold, if any.
    ///   - leadingDigits: How many digits stand before the prefix, for formats that start
    ///     with a number (`123456789:AA…`).
    init(
        _ name: String, prefix: String, _ length: Length, of alphabet: Alphabet, containing infix: String? = nil,
        afterDigits leadingDigits: ClosedRange<Int>? = nil
    ) {
        self.init(name, prefix: prefix, body: .run(alphabet, length.range), infix: infix, leadingDigits: leadingDigits)
    }

    /// A row whose body has a shape of its own (a PEM block).
    init(_ name: String, prefix: String, body: Body, infix: String? = nil, leadingDigits: ClosedRange<Int>? = nil) {
        precondition(!prefix.isEmpty, "a format needs a prefix: \(name)")
        self.name = name
        self.prefix = Array(prefix.utf8)
        self.body = body
        self.infix = infix.map { Array($0.utf8) }
        self.leadingDigits = leadingDigits
    }

    /// How many bytes of the alphabet follow the prefix.
    enum Length: Sendable {
        /// Exactly this many: a longer run is another word.
        case exactly(Int)
        /// This many or more, as far as the alphabet goes.
        case atLeast(Int)
        /// From the first to the second, both included: a longer run is another word.
        case between(Int, Int)

        var range: ClosedRange<Int> {
            switch self {
            case .exactly(let count): count...count
            case .atLeast(let count): count...Int.max
            case .between(let lower, let upper): lower...upper
            }
        }
    }

    /// What follows a prefix.
    enum Body: Sendable {
        /// A run of the alphabet's bytes, as many as the range allows.
        case run(Alphabet, ClosedRange<Int>)
        /// A PEM block whose label names a private key (`-----BEGIN RSA PRIVATE KEY-----`,
        /// `OPENSSH`, `EC`, `ENCRYPTED`, `PGP … BLOCK`), up to the end of its `-----END …-----`
        /// line, or to the end of the text when it is cut.
        case privateKeyBlock
    }

    /// A set of ASCII bytes that may follow a prefix.
    struct Alphabet: Sendable {
        /// One bit per byte below 128.
        private let low: UInt64
        private let high: UInt64

        init(_ characters: String) {
            var low: UInt64 = 0, high: UInt64 = 0
            for byte in characters.utf8 {
                precondition(byte < 128, "an alphabet is ASCII")
                if byte < 64 { low |= 1 << UInt64(byte) } else { high |= 1 << UInt64(byte - 64) }
            }
            self.low = low
            self.high = high
        }

        private init(low: UInt64, high: UInt64) {
            self.low = low
            self.high = high
        }

        /// Whether `byte` is in the set.
        @inline(__always)
        func contains(_ byte: UInt8) -> Bool {
            byte < 64 ? low & (1 << UInt64(byte)) != 0 : byte < 128 && high & (1 << UInt64(byte &- 64)) != 0
        }

        /// This set with `characters` added.
        func adding(_ characters: String) -> Alphabet {
            let other = Alphabet(characters)
            return Alphabet(low: low | other.low, high: high | other.high)
        }

        static let digits = Alphabet("0123456789")
        static let upper = Alphabet("ABCDEFGHIJKLMNOPQRSTUVWXYZ")
        static let lower = Alphabet("abcdefghijklmnopqrstuvwxyz")
        /// `A-Z`, `a-z`, `0-9`: base62.
        static let alphanumeric = upper.adding("abcdefghijklmnopqrstuvwxyz0123456789")
        /// `A-Z` and `0-9`.
        static let upperAlphanumeric = upper.adding("0123456789")
        /// `a-z` and `0-9`.
        static let lowerAlphanumeric = lower.adding("0123456789")
        /// Letters, digits, `_` and `-`: base64url.
        static let base64URL = alphanumeric.adding("_-")
        /// Letters, digits, `_`, `-` and `.`.
        static let base64URLAndDot = base64URL.adding(".")
        /// Letters, digits, `+`, `/` and `=`: base64 with its padding.
        static let base64 = alphanumeric.adding("+/=")
        /// `0-9`, `a-f`, `A-F`.
        static let hex = Alphabet("0123456789abcdefABCDEF")
        /// `0-9`, `a-f`.
        static let lowerHex = Alphabet("0123456789abcdef")
        /// `0-9`, `a-f` and `-`: what a UUID is written with.
        static let uuid = lowerHex.adding("-")
        /// What crypt(3) hashes are written with: letters, digits, `.`, `/` and the `$` between
        /// their fields.
        static let crypt = alphanumeric.adding("./$")
        /// Bitcoin's base58: letters and digits without `0`, `O`, `I` and `l`.
        static let base58 = Alphabet("123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz")
        /// Bech32's data characters, lowercase (`nsec1…`).
        static let bech32 = Alphabet("qpzry9x8gf2tvdw0s3jn54khce6mua7l")
        /// Bech32's data characters, uppercase (`AGE-SECRET-KEY-1…`).
        static let bech32Upper = Alphabet("QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L")
    }
}
