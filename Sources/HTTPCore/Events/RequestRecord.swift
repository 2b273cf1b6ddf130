import Foundation
import HTTPCoreConcurrency

/// One request as it went out (or, for `created`, as the caller built it) and its
/// policy-exposed form, each field computed once, on first read.
///
/// Shared by every event that describes this request, so every observer of every event gets
/// one redaction. Each field is redacted on its own, on the thread that reads it first (a
/// sink's worker, or an observer that reads it inline): an observer that reads only the URL
/// pays for the URL alone, and one that reads only what metrics need pays for nothing.
///
/// A record made from an earlier one of its exchange (a middleware's request made from the
/// caller's) shares with it the parts the two have equal (``Parts``): a header a middleware
/// added has the headers redacted again, not the URL or the body.
final class RequestRecord: @unchecked Sendable {
    let request: HTTPRequest
    let policy: HTTPCorePolicy
    let correlation: Correlation?
    /// For a streamed body: the bytes that went out (`request.body` then holds their first
    /// bytes, as captured); `nil` for a request sent whole.
    let streamedBodyByteCount: Int?
    /// Whether the exchange was made with the streaming `send`.
    let isStreamed: Bool
    /// The fields computed so far that this record does not share: read and written only under
    /// ``LockStripes``' lock for this record (which makes it `@unchecked Sendable`), so a
    /// record is one allocation.
    private var cache = Fields()
    /// The fields this record shares with the other records of its exchange, under the same
    /// lock: given by an earlier record, or made when a later one asks (``fieldsToShare()``).
    private var shared: SharedRequestFields?
    /// The parts whose fields this record reads from and writes to ``shared``, under the same
    /// lock: the parts equal to the earlier record's, or all of them once this record made
    /// ``shared``.
    private var sharedParts: Parts = []
    /// How many of this record's first header fields are the earlier record's, whose headers
    /// ``shared`` holds redacted (a middleware added headers after them); `nil` when its
    /// headers do not extend those. Set once, before the record is seen by another thread.
    private var sharedHeaderPrefixCount: Int?

    /// A request's parsed and redacted fields, each `nil` until computed.
    struct Fields {
        /// The URL's host (`.some(nil)` for a URL without one).
        var host: String??
        var url: String?
        var headers: HTTPHeaders?
        var body: HTTPCorePolicy.ExposedBody?
        var metadata: [String: String]?
    }

    /// The parts of a request whose fields two records of one exchange can share when the
    /// parts are equal.
    struct Parts: OptionSet, Sendable {
        let rawValue: UInt8

        /// The URL: its host and its redacted form.
        static let url = Parts(rawValue: 1 << 0)
        static let headers = Parts(rawValue: 1 << 1)
        /// The body as events show it, which its `Content-Type` and a streamed body's byte
        /// count shape too.
        static let body = Parts(rawValue: 1 << 2)
        static let metadata = Parts(rawValue: 1 << 3)
        static let all: Parts = [.url, .headers, .body, .metadata]
    }

    /// A request's correlation id and where it came from.
    struct Correlation: Sendable {
        /// The header that carries it.
        let headerName: String
        let value: String
        /// Whether the client made it (a fresh UUID) rather than the caller.
        let isGenerated: Bool
    }

    /// A record of `request`; `earlier`, a record of the same exchange (so of the same policy)
    /// whose fields this one shares for the parts the two have equal.
    init(
        request: HTTPRequest, policy: HTTPCorePolicy, correlation: Correlation?, isStreamed: Bool = false, streamedBodyByteCount: Int? = nil,
        earlier: RequestRecord? = nil
    ) {
        self.request = request
        self.policy = policy
        self.correlation = correlation
        self.isStreamed = isStreamed
        self.streamedBodyByteCount = streamedBodyByteCount
        guard let earlier else { return }
        let equal = earlier.partsEqual(to: request, streamedBodyByteCount: streamedBodyByteCount)
        let extendsHeaders = !equal.contains(.headers) && earlier.request.headers.count > 0
            && request.headers.fields.starts(with: earlier.request.headers.fields)
        guard !equal.isEmpty || extendsHeaders else { return }
        let (fields, parts) = earlier.fieldsToShare()
        // Not yet seen by another thread: set without the lock.
        shared = fields
        sharedParts = equal.intersection(parts)
        if extendsHeaders, parts.contains(.headers) { sharedHeaderPrefixCount = earlier.request.headers.count }
    }

    /// The parts of `request`, sent with a streamed body of `streamedBodyByteCount` bytes, that
    /// are this record's.
    private func partsEqual(to request: HTTPRequest, streamedBodyByteCount: Int?) -> Parts {
        var parts: Parts = []
        if request.url == self.request.url { parts.insert(.url) }
        let hasSameHeaders = request.headers == self.request.headers
        if hasSameHeaders { parts.insert(.headers) }
        if streamedBodyByteCount == self.streamedBodyByteCount, request.body == self.request.body,
            hasSameHeaders || request.headers["Content-Type"] == self.request.headers["Content-Type"]
        {
            parts.insert(.body)
        }
        if request.metadata == self.request.metadata { parts.insert(.metadata) }
        return parts
    }

    /// The fields this record shares with later records of its exchange, made on the first
    /// call (seeded with the fields it computed until then), and the parts they hold for it.
    ///
    /// A field this record computes while another thread makes them may land in its own cache
    /// alone; a later record then computes it again, to an equal value.
    private func fieldsToShare() -> (SharedRequestFields, Parts) {
        if let existing = LockStripes.withLock(for: self, { shared.map { ($0, sharedParts) } }) { return existing }
        let made = SharedRequestFields(fields: Fields())
        return LockStripes.withLock(for: self) {
            if let shared { return (shared, sharedParts) }
            // Not yet seen by another thread: seeded without its lock.
            made.fields = cache
            shared = made
            sharedParts = .all
            return (made, .all)
        }
    }

    /// The field of `part` at `own` (this record's cache) or `inShared` (the fields it shares,
    /// when it shares `part`), computed by `compute` on first read.
    @inline(__always)
    private func field<Value>(
        of part: Parts,
        own: ReferenceWritableKeyPath<RequestRecord, Value?>,
        inShared: ReferenceWritableKeyPath<SharedRequestFields, Value?>,
        orCompute compute: () -> Value
    ) -> Value {
        let (cached, fields) = LockStripes.withLock(for: self) { (self[keyPath: own], sharedParts.contains(part) ? shared : nil) }
        if let cached { return cached }
        guard let fields else { return LockStripes.field(own, of: self, orCompute: compute) }
        return LockStripes.field(inShared, of: fields, orCompute: compute)
    }

    /// The bytes of the body sent.
    var bodyByteCount: Int { streamedBodyByteCount ?? request.body?.count ?? 0 }

    var correlationID: String? { correlation?.value }

    /// Whether any field's redacted form was computed yet.
    var isExposed: Bool { !exposedFields.isEmpty }

    /// The fields whose redacted form was computed yet (by this record, or by one it shares
    /// them with), in declaration order.
    var exposedFields: [String] {
        let (own, sharedFields, parts): (Fields, SharedRequestFields?, Parts) = LockStripes.withLock(for: self) { (cache, shared, sharedParts) }
        var inShared = Fields()
        if let sharedFields { inShared = LockStripes.withLock(for: sharedFields) { sharedFields.fields } }
        let computed: [(String, Parts, Bool, Bool)] = [
            ("url", .url, own.url != nil, inShared.url != nil), ("headers", .headers, own.headers != nil, inShared.headers != nil),
            ("body", .body, own.body != nil, inShared.body != nil), ("metadata", .metadata, own.metadata != nil, inShared.metadata != nil),
        ]
        return computed.filter { _, part, isOwn, isShared in isOwn || (isShared && parts.contains(part)) }.map(\.0)
    }

    /// The correlation id as events may show it: one the client generated as it is; one the
    /// caller set as ``/HTTPCoreRedaction/Redactor/mask`` when the redactor masks its header (a sensitive name at
    /// `.standard`, any name outside the allowlist at `.strict`).
    var exposedCorrelationID: String? {
        guard let correlation else { return nil }
        guard !correlation.isGenerated, policy.redactor.masksHeader(named: correlation.headerName) else { return correlation.value }
        return Redactor.mask
    }

    /// The URL's host, as Foundation's `URL.host` reads it: parsed on first read, once for the
    /// records of an exchange that share the URL.
    var host: String? {
        field(of: .url, own: \.cache.host, inShared: \.fields.host) { request.url.host }
    }

    /// The URL, redacted.
    var exposedURL: String {
        field(of: .url, own: \.cache.url, inShared: \.fields.url) { policy.redactor.redactedURL(request.url) }
    }

    /// The headers, redacted.
    var exposedHeaders: HTTPHeaders {
        field(of: .headers, own: \.cache.headers, inShared: \.fields.headers) { redactedHeaders() }
    }

    /// The headers redacted field by field: those of the earlier record that this one's start
    /// with, as the records share them, then the ones a middleware added after them.
    private func redactedHeaders() -> HTTPHeaders {
        let redactor = policy.redactor
        guard redactor.redactsHeaders, let prefixCount = sharedHeaderPrefixCount, let shared = LockStripes.withLock(for: self, { shared })
        else { return redactor.redactedHeaders(request.headers) }
        var headers = LockStripes.field(\.fields.headers, of: shared) {
            redactor.redactedHeaders(HTTPHeaders(request.headers.fields.prefix(prefixCount)))
        }
        headers.reserveCapacity(request.headers.count)
        for field in request.headers.fields.dropFirst(prefixCount) {
            headers.add(name: field.name, value: redactor.redactedHeaderValue(field.value, name: field.name))
        }
        return headers
    }

    /// The metadata, redacted like headers.
    var exposedMetadata: [String: String] {
        guard !request.metadata.isEmpty else { return [:] }
        return field(of: .metadata, own: \.cache.metadata, inShared: \.fields.metadata) { policy.redactor.redactedMetadata(request.metadata) }
    }

    /// The captured body, redacted and capped.
    var exposedBody: HTTPCorePolicy.ExposedBody {
        field(of: .body, own: \.cache.body, inShared: \.fields.body) {
            policy.exposedBody(request.body, contentType: request.headers["Content-Type"], totalByteCount: streamedBodyByteCount)
        }
    }

    /// Every field, redacted.
    var exposed: HTTPEvent.Request {
        let body = exposedBody
        return HTTPEvent.Request(
            id: request.id,
            method: request.method,
            url: exposedURL,
            headers: exposedHeaders,
            body: body.body,
            isBodyTruncated: body.isTruncated,
            metadata: exposedMetadata
        )
    }
}
