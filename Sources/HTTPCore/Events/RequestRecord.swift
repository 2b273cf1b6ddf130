import Foundation
import HTTPCoreConcurrency

/// One request as it went out (or, for `created`, as the caller built it) and its
/// policy-exposed form, each field computed once, on first read.
///
/// Shared by every event that describes this request, so every observer of every event gets
/// one redaction. Each field is redacted on its own, on the thread that reads it first (a
/// sink's worker, or an observer that reads it inline): an observer that reads only the URL
/// pays for the URL alone, and one that reads only what metrics need pays for nothing.
final class RequestRecord: @unchecked Sendable {
    let request: HTTPRequest
    let policy: HTTPCorePolicy
    let correlation: Correlation?
    /// For a streamed body: the bytes that went out (`request.body` then holds their first
    /// bytes, as captured); `nil` for a request sent whole.
    let streamedBodyByteCount: Int?
    /// Whether the exchange was made with the streaming `send`.
    let isStreamed: Bool
    /// The fields redacted so far: read and written only under ``LockStripes``' lock for this
    /// record (which makes it `@unchecked Sendable`), so a record is one allocation.
    private var cache = Exposed()
    /// The URL's host once read (`.some(nil)` for a URL without one), under the same lock,
    /// while the record shares no ``hostCache``.
    private var parsedHost: String??
    /// The host this record reads, shared with the other records of its exchange of the same
    /// URL: given by an earlier one, or made when a later one asks (``hostCacheToShare()``),
    /// under the same lock. An exchange's attempts whose URL the middlewares left as it was
    /// parse its host once, not once per record, and no record keeps another alive.
    private var hostCache: URLHostCache?

    /// The fields redacted so far.
    private struct Exposed {
        var url: String?
        var headers: HTTPHeaders?
        var body: HTTPCorePolicy.ExposedBody?
        var metadata: [String: String]?
    }

    /// A request's correlation id and where it came from.
    struct Correlation: Sendable {
        /// The header that carries it.
        let headerName: String
        let value: String
        /// Whether the client made it (a fresh UUID) rather than the caller.
        let isGenerated: Bool
    }

    /// A record of `request`; `earlier`, a record of the same exchange whose URL this one
    /// shares when the two are equal.
    init(
        request: HTTPRequest, policy: HTTPCorePolicy, correlation: Correlation?, isStreamed: Bool = false, streamedBodyByteCount: Int? = nil,
        earlier: RequestRecord? = nil
    ) {
        self.request = request
        self.policy = policy
        self.correlation = correlation
        self.isStreamed = isStreamed
        self.streamedBodyByteCount = streamedBodyByteCount
        // Not yet seen by another thread: set without the lock.
        hostCache = earlier.flatMap { $0.request.url == request.url ? $0.hostCacheToShare() : nil }
    }

    /// The cache of this record's host for a later record of the same URL: this record's own,
    /// made on the first call and read from then on, seeded with the host if it was parsed.
    private func hostCacheToShare() -> URLHostCache {
        let (cache, parsed) = LockStripes.withLock(for: self) { (hostCache, parsedHost) }
        if let cache { return cache }
        let made = URLHostCache(url: request.url, parsed: parsed)
        return LockStripes.withLock(for: self) {
            if let hostCache { return hostCache }
            hostCache = made
            return made
        }
    }

    /// The bytes of the body sent.
    var bodyByteCount: Int { streamedBodyByteCount ?? request.body?.count ?? 0 }

    var correlationID: String? { correlation?.value }

    /// Whether any field's redacted form was computed yet.
    var isExposed: Bool { !exposedFields.isEmpty }

    /// The fields whose redacted form was computed yet, in declaration order.
    var exposedFields: [String] {
        LockStripes.withLock(for: self) {
            [("url", cache.url != nil), ("headers", cache.headers != nil), ("body", cache.body != nil), ("metadata", cache.metadata != nil)]
                .filter(\.1).map(\.0)
        }
    }

    /// The correlation id as events may show it: one the client generated as it is; one the
    /// caller set as ``/HTTPCoreRedaction/Redactor/mask`` when the redactor masks its header (a sensitive name at
    /// `.standard`, any name outside the allowlist at `.strict`).
    var exposedCorrelationID: String? {
        guard let correlation else { return nil }
        guard !correlation.isGenerated, policy.redactor.masksHeader(named: correlation.headerName) else { return correlation.value }
        return Redactor.mask
    }

    /// The URL's host, as Foundation's `URL.host` reads it: parsed on first read, once per
    /// record or per run of records of the same URL.
    var host: String? {
        if let shared = LockStripes.withLock(for: self, { hostCache }) { return shared.host }
        return LockStripes.field(\.parsedHost, of: self) { request.url.host }
    }

    /// The URL, redacted.
    var exposedURL: String {
        LockStripes.field(\.cache.url, of: self) { policy.redactor.redactedURL(request.url) }
    }

    /// The headers, redacted.
    var exposedHeaders: HTTPHeaders {
        LockStripes.field(\.cache.headers, of: self) { policy.redactor.redactedHeaders(request.headers) }
    }

    /// The metadata, redacted like headers.
    var exposedMetadata: [String: String] {
        guard !request.metadata.isEmpty else { return [:] }
        return LockStripes.field(\.cache.metadata, of: self) { policy.redactor.redactedMetadata(request.metadata) }
    }

    /// The captured body, redacted and capped.
    var exposedBody: HTTPCorePolicy.ExposedBody {
        LockStripes.field(\.cache.body, of: self) {
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
