import Foundation
import HTTPCoreConcurrency

/// One request as it went out (or, for `created`, as the caller built it) and its
/// policy-exposed form, computed once, on first read.
///
/// Shared by every event that describes this request. `exposed` runs the redactor on the
/// thread that reads it first (an observer's delivery), never on the request path.
final class RequestRecord: Sendable {
    let request: HTTPRequest
    let policy: HTTPCorePolicy
    let correlation: Correlation?
    /// For a streamed body: the bytes that went out (`request.body` then holds their first
    /// bytes, as captured); `nil` for a request sent whole.
    let streamedBodyByteCount: Int?
    /// Whether the exchange was made with the streaming `send`.
    let isStreamed: Bool
    private let cache = Locked<HTTPEvent.Request?>(nil)

    /// A request's correlation id and where it came from.
    struct Correlation: Sendable {
        /// The header that carries it.
        let headerName: String
        let value: String
        /// Whether the client made it (a fresh UUID) rather than the caller.
        let isGenerated: Bool
    }

    init(request: HTTPRequest, policy: HTTPCorePolicy, correlation: Correlation?, isStreamed: Bool = false, streamedBodyByteCount: Int? = nil) {
        self.request = request
        self.policy = policy
        self.correlation = correlation
        self.isStreamed = isStreamed
        self.streamedBodyByteCount = streamedBodyByteCount
    }

    /// The bytes of the body sent.
    var bodyByteCount: Int { streamedBodyByteCount ?? request.body?.count ?? 0 }

    var correlationID: String? { correlation?.value }

    /// Whether the redacted form was computed yet.
    var isExposed: Bool { cache.withLock { $0 != nil } }

    /// The correlation id as events may show it: one the client generated as it is; one the
    /// caller set as ``Redactor/mask`` when the redactor masks its header (a sensitive name at
    /// `.standard`, any name outside the allowlist at `.strict`).
    var exposedCorrelationID: String? {
        guard let correlation else { return nil }
        guard !correlation.isGenerated, policy.redactor.masksHeader(named: correlation.headerName) else { return correlation.value }
        return Redactor.mask
    }

    var exposed: HTTPEvent.Request {
        cache.value {
            let body = policy.exposedBody(request.body, contentType: request.headers["Content-Type"], totalByteCount: streamedBodyByteCount)
            return HTTPEvent.Request(
                id: request.id,
                method: request.method,
                url: policy.redactor.redactedURL(request.url),
                headers: policy.redactor.redactedHeaders(request.headers),
                body: body.body,
                isBodyTruncated: body.isTruncated,
                metadata: policy.redactor.redactedMetadata(request.metadata)
            )
        }
    }
}
