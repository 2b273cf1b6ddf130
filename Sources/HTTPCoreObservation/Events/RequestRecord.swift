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
/// caller's) reads from it the fields of the parts the two have equal (``Parts``): a header a
/// middleware added has the headers redacted again, not the URL or the body. Making such a
/// record costs the request path one retain and a body length comparison; which parts are
/// equal is found when a field is first read (on a sink's worker), and for the host, which an
/// observer may read inline, the URL alone is compared.
final class RequestRecord: @unchecked Sendable {
    let request: HTTPRequest
    /// The client's policy, shared by its records (one reference, not a copy of the policy).
    let sharedPolicy: SharedPolicy
    let correlation: Correlation?
    /// For a streamed body: the bytes that went out (`request.body` then holds their first
    /// bytes, as captured); `nil` for a request sent whole.
    let streamedBodyByteCount: Int?
    /// Whether the exchange was made with the streaming `send`.
    let isStreamed: Bool
    /// The record of the same exchange whose fields this one reads for the parts the two have
    /// equal. Kept alive by this one, so kept only when that keeps no other body alive: it has
    /// none, or one as long as this one's (the same bytes, for a body the middlewares passed
    /// on); a record whose middleware re-encoded the body reads nothing from it.
    private let earlier: RequestRecord?
    /// The fields computed so far: read and written only under ``LockStripes``' lock for this
    /// record (which makes it `@unchecked Sendable`), so a record is one allocation.
    private var cache = Fields()
    /// Which parts of the request equal ``earlier``'s, under the same lock; `nil` until a
    /// field is first read.
    private var sharing: Sharing?

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
    }

    /// What a record shares with its ``earlier`` one.
    private struct Sharing {
        /// The parts equal to the earlier record's.
        var parts: Parts
        /// How many of this record's first header fields are the earlier record's (a middleware
        /// added headers after them); `nil` when its headers do not extend those.
        var headerPrefixCount: Int?
    }

    /// A request's correlation id and where it came from.
    struct Correlation: Sendable {
        /// The header that carries it.
        let headerName: String
        let value: String
        /// Whether the client made it (a fresh UUID) rather than the caller.
        let isGenerated: Bool
    }

    /// A record of `request` under a policy of its own (for events made as values, and tests).
    convenience init(
        request: HTTPRequest, policy: HTTPCorePolicy, correlation: Correlation?, isStreamed: Bool = false, streamedBodyByteCount: Int? = nil,
        earlier: RequestRecord? = nil
    ) {
        self.init(
            request: request, policy: SharedPolicy(policy), correlation: correlation, isStreamed: isStreamed,
            streamedBodyByteCount: streamedBodyByteCount, earlier: earlier
        )
    }

    /// A record of `request` under a client's `policy`; `earlier`, a record of the same exchange
    /// (so of the same policy) whose fields this one reads for the parts the two have equal.
    init(
        request: HTTPRequest, policy: SharedPolicy, correlation: Correlation?, isStreamed: Bool = false, streamedBodyByteCount: Int? = nil,
        earlier: RequestRecord? = nil
    ) {
        self.request = request
        sharedPolicy = policy
        self.correlation = correlation
        self.isStreamed = isStreamed
        self.streamedBodyByteCount = streamedBodyByteCount
        // A length, not the bytes: the request path pays no comparison of bodies.
        if let earlier, earlier.request.body == nil || earlier.request.body?.count == request.body?.count {
            self.earlier = earlier
        } else {
            self.earlier = nil
        }
    }

    /// Which parts of this record's request equal `earlier`'s: compared on the first read of
    /// a field, not as the record is made.
    private static func sharing(of request: HTTPRequest, streamedBodyByteCount: Int?, with earlier: RequestRecord) -> Sharing {
        let other = earlier.request
        var parts: Parts = []
        if request.url == other.url { parts.insert(.url) }
        // Field by field with their byte counts, not `==`: headers equal as Swift strings may
        // be spelled with other bytes (the Kelvin sign for `K`), which events must show as sent.
        let sharedFieldCount = request.headers.countOfLeadingFields(sharedWith: other.headers)
        let hasSameHeaders = sharedFieldCount == request.headers.count && sharedFieldCount == other.headers.count
        if hasSameHeaders { parts.insert(.headers) }
        if streamedBodyByteCount == earlier.streamedBodyByteCount, request.body == other.body,
            hasSameHeaders || hasSameBytes(request.headers["Content-Type"], other.headers["Content-Type"])
        {
            parts.insert(.body)
        }
        if hasSameBytes(request.metadata, other.metadata) { parts.insert(.metadata) }
        let extendsHeaders = !hasSameHeaders && !other.headers.isEmpty && sharedFieldCount == other.headers.count
        return Sharing(parts: parts, headerPrefixCount: extendsHeaders ? other.headers.count : nil)
    }

    /// Whether `a` and `b` are the same UTF-8 bytes (`==` is canonical equivalence).
    private static func hasSameBytes(_ a: String?, _ b: String?) -> Bool {
        guard let a, let b else { return a == nil && b == nil }
        return a.utf8.elementsEqual(b.utf8)
    }

    /// Whether `a` and `b` hold the same keys and values, each the same UTF-8 bytes: a
    /// `Dictionary` finds a key under any canonically equivalent spelling.
    private static func hasSameBytes(_ a: [String: String], _ b: [String: String]) -> Bool {
        guard a.count == b.count else { return false }
        return a.allSatisfy { key, value in
            guard let index = b.index(forKey: key) else { return false }
            return hasSameBytes(key, b[index].key) && hasSameBytes(value, b[index].value)
        }
    }

    /// The earlier record and what this one shares with it, compared on first use; `nil`
    /// without one.
    private func sharedWithEarlier() -> (RequestRecord, Sharing)? {
        guard let earlier else { return nil }
        if let known = LockStripes.withLock(for: self, { sharing }) { return (earlier, known) }
        let compared = Self.sharing(of: request, streamedBodyByteCount: streamedBodyByteCount, with: earlier)
        return LockStripes.withLock(for: self) {
            if let sharing { return (earlier, sharing) }
            sharing = compared
            return (earlier, compared)
        }
    }

    /// The field at `own`, computed on first read: the earlier record's `fromEarlier` when
    /// the two have `part` equal, else `compute`'s.
    private func field<Value>(
        _ own: ReferenceWritableKeyPath<RequestRecord, Value?>, of part: Parts, fromEarlier: (RequestRecord) -> Value, orCompute compute: () -> Value
    ) -> Value {
        LockStripes.field(own, of: self) {
            guard let (earlier, sharing) = sharedWithEarlier(), sharing.parts.contains(part) else { return compute() }
            return fromEarlier(earlier)
        }
    }

    /// The policy the record's fields are exposed by.
    var policy: HTTPCorePolicy { sharedPolicy.policy }

    /// The bytes of the body sent.
    var bodyByteCount: Int { streamedBodyByteCount ?? request.body?.count ?? 0 }

    var correlationID: String? { correlation?.value }

    /// Whether the parts shared with the earlier record were compared and kept: on the first
    /// read of a field, never as the record is made.
    var hasComparedParts: Bool { LockStripes.withLock(for: self) { sharing != nil } }

    /// Whether any field's redacted form was computed yet.
    var isExposed: Bool { !exposedFields.isEmpty }

    /// The fields whose redacted form was computed yet (by this record, or by the earlier one
    /// for a part the two have equal), in declaration order. A diagnostic that changes
    /// nothing: when no field was read yet, the parts are compared for this answer alone, not
    /// kept, so reading it leaves the record as it found it.
    var exposedFields: [String] {
        let (own, known) = LockStripes.withLock(for: self) { (cache, sharing) }
        var inEarlier: [String] = []
        var parts: Parts = []
        if let earlier {
            inEarlier = earlier.exposedFields
            parts = (known ?? Self.sharing(of: request, streamedBodyByteCount: streamedBodyByteCount, with: earlier)).parts
        }
        let computed: [(String, Parts, Bool)] = [
            ("url", .url, own.url != nil), ("headers", .headers, own.headers != nil), ("body", .body, own.body != nil),
            ("metadata", .metadata, own.metadata != nil),
        ]
        return computed.filter { name, part, isOwn in isOwn || (parts.contains(part) && inEarlier.contains(name)) }.map(\.0)
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
    /// records of an exchange that share the URL. An observer that reads it inline (metrics)
    /// pays for one URL comparison, not for the other parts'.
    ///
    /// The cache is read and written directly under the lock, not through
    /// ``/HTTPCoreConcurrency/LockStripes/field(_:of:orCompute:)``: its key path projections cost
    /// about 260 instructions a read here, and metrics read the host inline, twice an exchange.
    var host: String? {
        if let known = LockStripes.withLock(for: self, { cache.host }) { return known }
        let parsed: String?
        if let earlier, request.url == earlier.request.url {
            parsed = earlier.host
        } else {
            parsed = request.url.host
        }
        return LockStripes.withLock(for: self) {
            // Another thread may have stored it first: every reader sees that one value.
            if let known = cache.host { return known }
            cache.host = .some(parsed)
            return parsed
        }
    }

    /// The URL, redacted.
    var exposedURL: String {
        field(\.cache.url, of: .url, fromEarlier: \.exposedURL) { policy.redactor.redactedURL(request.url) }
    }

    /// The headers, redacted.
    var exposedHeaders: HTTPHeaders {
        field(\.cache.headers, of: .headers, fromEarlier: \.exposedHeaders) { redactedHeaders() }
    }

    /// The headers redacted field by field: those of the earlier record that this one's start
    /// with, as that record redacts them, then the ones a middleware added after them.
    private func redactedHeaders() -> HTTPHeaders {
        let redactor = policy.redactor
        guard redactor.redactsHeaders, let (earlier, sharing) = sharedWithEarlier(), let prefixCount = sharing.headerPrefixCount
        else { return redactor.redactedHeaders(request.headers) }
        var headers = earlier.exposedHeaders
        headers.reserveCapacity(request.headers.count)
        for field in request.headers.fields.dropFirst(prefixCount) {
            headers.add(name: redactor.redactedHeaderName(field.name), value: redactor.redactedHeaderValue(field.value, name: field.name))
        }
        return headers
    }

    /// The metadata, redacted like headers.
    var exposedMetadata: [String: String] {
        guard !request.metadata.isEmpty else { return [:] }
        return field(\.cache.metadata, of: .metadata, fromEarlier: \.exposedMetadata) { policy.redactor.redactedMetadata(request.metadata) }
    }

    /// The captured body, redacted and capped.
    var exposedBody: HTTPCorePolicy.ExposedBody {
        field(\.cache.body, of: .body, fromEarlier: \.exposedBody) {
            policy.exposedBody(request.body, contentType: request.headers["Content-Type"], totalByteCount: streamedBodyByteCount)
        }
    }

    /// Every field, redacted.
    var exposed: HTTPEvent.ExposedRequest {
        let body = exposedBody
        return HTTPEvent.ExposedRequest(
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
