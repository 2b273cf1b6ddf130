import Foundation

/// Decides what lifecycle events expose, and whether requests carry a correlation header.
///
/// Inject it into a client. Everything an event exposes goes through the policy's
/// ``redactor``; bodies are either omitted or captured up to a byte cap. Redaction runs
/// lazily, when an observer first reads an event's request or response: never for an event
/// whose observers read only what metrics and traces need, and on their workers for the
/// sinks that ship or store (dev-see, Loki, HAR).
///
/// ```swift
/// var policy = HTTPCorePolicy.debug
/// policy.redactor = Redactor(level: .strict)
/// policy.correlationHeaderName = "X-Correlation-ID"
/// let client = URLSessionClient(policy: policy)
/// ```
public struct HTTPCorePolicy: Sendable, Hashable {
    /// Whether events carry bodies.
    public enum BodyCapture: Sendable, Hashable {
        /// Events carry no body, only byte counts.
        case omitted
        /// Events carry bodies, redacted and cut to at most `maxBytes` bytes.
        case captured(maxBytes: Int)
    }

    /// How many messages of a streamed response observers see, and how much of each.
    ///
    /// Server-sent events and JSON lines in a response read through
    /// ``/HTTPCore/HTTPClient/send(_:body:receive:isolation:)`` are emitted one by one as
    /// ``HTTPEvent/Name/responseMessage`` events when bodies are captured
    /// (``BodyCapture/captured(maxBytes:)``); with ``BodyCapture/omitted`` none is, and the
    /// terminal event only counts them (``HTTPEvent/Exchange/streamMessageCount``).
    public struct StreamMessageCapture: Sendable, Hashable {
        /// The most messages emitted per exchange; later ones are counted, not emitted.
        public var maxCount: Int
        /// The most bytes of a message's data kept; the rest is cut and the message marked
        /// truncated.
        public var maxBytes: Int

        /// Creates a capture; by default 1,000 messages of at most 4 KiB.
        public init(maxCount: Int = 1000, maxBytes: Int = 4096) {
            self.maxCount = maxCount
            self.maxBytes = maxBytes
        }
    }

    /// The redaction engine applied to headers, URLs, bodies and error texts.
    ///
    /// It carries what the policy's ``interpreters`` know of names that read as secrets' but
    /// hold ordinary content in the traffic they read (with the GenAI interpreter, an LLM
    /// server's `event: token` and `logprobs`), whichever is set last.
    public var redactor: Redactor {
        didSet { redactor.nameExceptions = Self.nameExceptions(of: interpreters) }
    }
    /// Whether events carry bodies.
    public var bodyCapture: BodyCapture
    /// The header that carries a correlation id on each outgoing request, or `nil` for none.
    ///
    /// When set, a request without this header gets one with a new UUID; a request that has
    /// it keeps its value. Either way the value is on every event as
    /// ``HTTPEvent/correlationID``.
    public var correlationHeaderName: String?
    /// How many messages of a streamed response observers see, and how much of each.
    public var streamMessages = StreamMessageCapture()

    /// Headers whose value the app (or a middleware) set is reported as the correlation id,
    /// the first one present in this order, when ``correlationHeaderName`` is `nil`.
    ///
    /// Nothing is added to requests for these; a caller-set value is redacted like the
    /// header's value would be.
    public var reportedCorrelationHeaderNames: [String]

    /// The interpreters that read meaning into observed exchanges, in order; what they derive
    /// rides on the terminal event (``HTTPEvent/attachments``). None by default: add one with
    /// ``interpreting(_:)`` (the GenAI facts of LLM calls: `.interpreting(.genAI)`, from
    /// HTTPCoreGenAI).
    ///
    /// A client offers an observed exchange's request to each, once, on the request's task,
    /// and shows the ones that read it what comes back, whatever ``bodyCapture`` and
    /// ``streamMessages`` say (events still show only what they allow, redacted).
    public var interpreters: [any HTTPExchangeInterpreter] {
        didSet { redactor.nameExceptions = Self.nameExceptions(of: interpreters) }
    }

    /// The default correlation header name.
    package static let defaultCorrelationHeaderName = "X-Correlation-ID"

    /// The headers reported as the correlation id by default: `X-Correlation-ID`,
    /// `X-Request-ID`, `traceparent`.
    @usableFromInline package static let defaultReportedCorrelationHeaderNames = ["X-Correlation-ID", "X-Request-ID", "traceparent"]

    /// Creates a policy; with no arguments, the ``default`` one.
    ///
    /// - Parameters:
    ///   - redactor: The redaction engine; ``/HTTPCoreRedaction/Redactor/standard`` by default.
    ///   - bodyCapture: Whether events carry bodies: captured up to 64 KiB in DEBUG builds,
    ///     omitted otherwise.
    ///   - correlationHeaderName: The header that carries a correlation id on each request;
    ///     none by default.
    ///   - reportedCorrelationHeaderNames: Headers reported as the correlation id; by default
    ///     `X-Correlation-ID`, `X-Request-ID`, `traceparent`.
    ///   - interpreters: The interpreters that read observed exchanges.
    public init(
        redactor: Redactor = .standard,
        bodyCapture: BodyCapture = HTTPCorePolicy.defaultBodyCapture,
        correlationHeaderName: String? = nil,
        reportedCorrelationHeaderNames: [String] = HTTPCorePolicy.defaultReportedCorrelationHeaderNames,
        interpreters: [any HTTPExchangeInterpreter] = []
    ) {
        self.redactor = redactor
        self.bodyCapture = bodyCapture
        self.correlationHeaderName = correlationHeaderName
        self.reportedCorrelationHeaderNames = reportedCorrelationHeaderNames
        self.interpreters = interpreters
        self.redactor.nameExceptions = Self.nameExceptions(of: interpreters)
    }

    /// The exceptions `interpreters` give the redactor, in their order.
    private static func nameExceptions(of interpreters: [any HTTPExchangeInterpreter]) -> NameExceptions {
        interpreters.reduce(NameExceptions.none) { exceptions, interpreter in
            (interpreter as? any NameExceptionsProviding).map { exceptions.merged(with: $0.nameExceptions) } ?? exceptions
        }
    }

    /// This policy with `interpreter` read after its other interpreters.
    ///
    /// ```swift
    /// let client = URLSessionClient(policy: .default.interpreting(.genAI))
    /// ```
    ///
    /// - Parameter interpreter: The interpreter to add.
    /// - Returns: The policy with the interpreter added.
    public func interpreting(_ interpreter: some HTTPExchangeInterpreter) -> HTTPCorePolicy {
        var policy = self
        policy.interpreters.append(interpreter)
        return policy
    }

    /// The first of ``reportedCorrelationHeaderNames`` that `headers` carry, with its value.
    package func reportedCorrelation(in headers: HTTPHeaders) -> (headerName: String, value: String)? {
        for name in reportedCorrelationHeaderNames {
            if let value = headers[name], !value.isEmpty { return (name, value) }
        }
        return nil
    }

    /// Bodies captured, redacted and capped at 64 KiB; the default in DEBUG builds.
    public static let debug = HTTPCorePolicy(bodyCapture: .captured(maxBytes: 64 * 1024))

    /// Bodies omitted; the default in release builds.
    public static let release = HTTPCorePolicy(bodyCapture: .omitted)

    /// What ``default`` and ``init(redactor:bodyCapture:correlationHeaderName:reportedCorrelationHeaderNames:interpreters:)``
    /// capture: bodies up to 64 KiB in DEBUG builds, none otherwise.
    @usableFromInline package static var defaultBodyCapture: BodyCapture {
        #if DEBUG
        .captured(maxBytes: 64 * 1024)
        #else
        .omitted
        #endif
    }

    /// ``debug`` in DEBUG builds, ``release`` otherwise: `HTTPCorePolicy()`.
    public static var `default`: HTTPCorePolicy { HTTPCorePolicy() }

    /// The most body bytes events show: the capture cap, 0 when bodies are omitted.
    var capturedBodyBytes: Int {
        guard case .captured(let cap) = bodyCapture else { return 0 }
        return max(0, cap)
    }

    /// What events show of a body, and whether it was cut at the cap.
    typealias ExposedBody = (body: Data?, isTruncated: Bool)

    /// What events show of a body: `nil` when omitted or empty, else the redacted capture.
    /// `totalByteCount` is the size of a streamed body of which `body` is the first bytes.
    func exposedBody(_ body: Data?, contentType: String?, totalByteCount: Int? = nil) -> ExposedBody {
        guard case .captured(let cap) = bodyCapture, let body, !body.isEmpty else { return (nil, false) }
        let maxBytes = max(0, cap)
        let isTruncated = max(body.count, totalByteCount ?? 0) > maxBytes
        let captured = isTruncated ? body.prefix(maxBytes) : body
        let redacted = redactor.redactedBody(Data(captured), contentType: contentType, isTruncated: isTruncated)
        // Masks can make the redacted body longer than the cap; cut again, it is truncated too.
        guard redacted.count > maxBytes else { return (redacted, isTruncated) }
        return (Self.prefix(of: redacted, upTo: maxBytes), true)
    }

    /// The first `limit` bytes of a redacted body, or fewer so that no mask is cut in two.
    private static func prefix(of redacted: Data, upTo limit: Int) -> Data {
        let mask = Data(Redactor.mask.utf8)
        let start = redacted.startIndex
        for length in stride(from: min(mask.count - 1, limit), through: 1, by: -1) {
            let maskStart = start + limit - length
            if redacted[maskStart...].starts(with: mask) { return redacted[start..<maskStart] }
        }
        return redacted.prefix(limit)
    }
}

extension HTTPCorePolicy {
    /// Whether two policies are the same: equal fields, and the same interpreters in the same
    /// order.
    public static func == (lhs: HTTPCorePolicy, rhs: HTTPCorePolicy) -> Bool {
        lhs.redactor == rhs.redactor && lhs.bodyCapture == rhs.bodyCapture && lhs.correlationHeaderName == rhs.correlationHeaderName
            && lhs.streamMessages == rhs.streamMessages && lhs.reportedCorrelationHeaderNames == rhs.reportedCorrelationHeaderNames
            && lhs.interpreters.count == rhs.interpreters.count
            && zip(lhs.interpreters, rhs.interpreters).allSatisfy { $0.hashable == $1.hashable }
    }

    /// Hashes the fields ``==(_:_:)`` compares.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(redactor)
        hasher.combine(bodyCapture)
        hasher.combine(correlationHeaderName)
        hasher.combine(streamMessages)
        hasher.combine(reportedCorrelationHeaderNames)
        for interpreter in interpreters { hasher.combine(interpreter.hashable) }
    }
}
