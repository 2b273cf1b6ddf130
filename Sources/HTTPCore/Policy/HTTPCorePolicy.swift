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
    /// ``HTTPClient/send(_:body:receive:isolation:)`` are emitted one by one as
    /// ``HTTPEvent/Name/responseMessage`` events when bodies are captured
    /// (``BodyCapture/captured(maxBytes:)``); with ``BodyCapture/omitted`` none is, and the
    /// terminal event only counts them (``HTTPEvent/streamMessageCount``).
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
    public var redactor: Redactor
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

    /// Which requests are LLM calls, whose terminal event carries the facts derived from
    /// them (``HTTPEvent/genAI``); ``GenAIRecognizer/standard`` by default, `nil` to
    /// recognise none.
    ///
    /// A client recognises an observed exchange's request once, when the exchange begins, by
    /// method, host and path: a request that is not a `POST` costs one comparison, and an
    /// exchange nobody observes costs nothing. For a recognised call it reads the raw
    /// exchange, whatever ``bodyCapture`` and ``streamMessages`` say (events still show only
    /// what they allow, redacted):
    /// - the request parameters, from the request body when it was sent whole; a streamed
    ///   request body only as far as ``bodyCapture`` captured it (with
    ///   ``BodyCapture/omitted``, none: only a model named in the path is known); its stop
    ///   sequences, the caller's text, only when bodies are captured, each through
    ///   ``redactor``;
    /// - a buffered response's body and headers, once, when an observer first reads the
    ///   terminal event's ``HTTPEvent/genAI`` (the request body too);
    /// - a streamed response's server-sent events or JSON lines, every one, kept privately
    ///   with their arrival times as they pass and parsed when an observer first reads the
    ///   terminal event's ``HTTPEvent/genAI`` (at most 256 KiB of them kept unread: past
    ///   that, those kept are parsed on the reading task to make room); or its JSON body,
    ///   kept privately until it ends.
    ///
    /// Each body, buffered or streamed, is read up to ``maximumGenAIBodyBytes``, so a JSON
    /// answer gives the same facts either way; each message of a stream up to
    /// ``maximumGenAIMessageBytes``.
    public var genAI: GenAIRecognizer?

    /// The default correlation header name.
    public static let defaultCorrelationHeaderName = "X-Correlation-ID"

    /// The headers reported as the correlation id by default: `X-Correlation-ID`,
    /// `X-Request-ID`, `traceparent`.
    public static let defaultReportedCorrelationHeaderNames = ["X-Correlation-ID", "X-Request-ID", "traceparent"]

    /// Creates a policy.
    public init(
        redactor: Redactor = .standard,
        bodyCapture: BodyCapture = .captured(maxBytes: 64 * 1024),
        correlationHeaderName: String? = nil,
        reportedCorrelationHeaderNames: [String] = HTTPCorePolicy.defaultReportedCorrelationHeaderNames,
        genAI: GenAIRecognizer? = .standard
    ) {
        self.redactor = redactor
        self.bodyCapture = bodyCapture
        self.correlationHeaderName = correlationHeaderName
        self.reportedCorrelationHeaderNames = reportedCorrelationHeaderNames
        self.genAI = genAI
    }

    /// The first of ``reportedCorrelationHeaderNames`` that `headers` carry, with its value.
    public func reportedCorrelation(in headers: HTTPHeaders) -> (headerName: String, value: String)? {
        for name in reportedCorrelationHeaderNames {
            if let value = headers[name], !value.isEmpty { return (name, value) }
        }
        return nil
    }

    /// The most bytes of a body that a client reads for an LLM call's facts (``genAI``): a
    /// request body, or a response's body, buffered or streamed (a JSON answer read through
    /// the streaming API). A longer one is not read, and the facts it holds are left out, so
    /// that reading costs bounded time: 4 MiB. A buffered body is the one the exchange holds
    /// anyway; a streamed one is kept by the response's tap, beside what the caller reads,
    /// until it ends or passes this bound.
    public static let maximumGenAIBodyBytes = 4 << 20

    /// The most bytes of one message of a streamed LLM response (a server-sent event's data,
    /// a JSON line) that a client reads for the call's facts (``genAI``): 256 KiB.
    ///
    /// A streamed response's tap keeps the message being assembled beside what
    /// ``streamMessages`` keeps (its line and its data, so about twice this). A longer message
    /// still counts as a message (``GenAIResponse/messageCount``) but its facts are left out.
    /// A streamed JSON body is not made of messages: it is read up to
    /// ``maximumGenAIBodyBytes``.
    public static let maximumGenAIMessageBytes = 256 << 10

    /// Bodies captured, redacted and capped at 64 KiB; the default in DEBUG builds.
    public static let debug = HTTPCorePolicy(bodyCapture: .captured(maxBytes: 64 * 1024))

    /// Bodies omitted; the default in release builds.
    public static let release = HTTPCorePolicy(bodyCapture: .omitted)

    /// ``debug`` in DEBUG builds, ``release`` otherwise.
    public static var `default`: HTTPCorePolicy {
        #if DEBUG
        debug
        #else
        release
        #endif
    }

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
