import Foundation
import HTTPCoreConcurrency

/// A raw response and its policy-exposed form, each field computed once, on first read (see
/// ``RequestRecord``).
final class ResponseRecord: @unchecked Sendable {
    let response: HTTPResponse
    /// The client's policy, shared by its records (one reference, not a copy of the policy).
    let sharedPolicy: SharedPolicy
    /// For a streamed body: the bytes received so far (`response.body` then holds their first
    /// bytes, as captured); `nil` for a response received whole.
    let streamedBodyByteCount: Int?
    /// The fields redacted so far: read and written only under ``LockStripes``' lock for this
    /// record (which makes it `@unchecked Sendable`), so a record is one allocation.
    private var cache = Exposed()

    /// The fields redacted so far.
    private struct Exposed {
        var url: String?
        var headers: HTTPHeaders?
        var addedRequestHeaders: HTTPHeaders?
        var body: HTTPCorePolicy.ExposedBody?
    }

    /// A record of `response` under a policy of its own (for events made as values, and tests).
    convenience init(response: HTTPResponse, policy: HTTPCorePolicy, streamedBodyByteCount: Int? = nil) {
        self.init(response: response, policy: SharedPolicy(policy), streamedBodyByteCount: streamedBodyByteCount)
    }

    /// A record of `response` under a client's `policy`.
    init(response: HTTPResponse, policy: SharedPolicy, streamedBodyByteCount: Int? = nil) {
        self.response = response
        sharedPolicy = policy
        self.streamedBodyByteCount = streamedBodyByteCount
    }

    /// The policy the record's fields are exposed by.
    var policy: HTTPCorePolicy { sharedPolicy.policy }

    /// The bytes of the body received.
    var bodyByteCount: Int { streamedBodyByteCount ?? response.body.count }

    /// Whether any field's redacted form was computed yet.
    var isExposed: Bool { !exposedFields.isEmpty }

    /// The fields whose redacted form was computed yet, in declaration order.
    var exposedFields: [String] {
        LockStripes.withLock(for: self) {
            [("url", cache.url != nil), ("headers", cache.headers != nil), ("body", cache.body != nil)].filter(\.1).map(\.0)
        }
    }

    /// The final URL, redacted.
    var exposedURL: String {
        LockStripes.field(\.cache.url, of: self) { policy.redactor.redactedURL(response.url) }
    }

    /// The headers, redacted.
    var exposedHeaders: HTTPHeaders {
        LockStripes.field(\.cache.headers, of: self) { policy.redactor.redactedHeaders(response.headers) }
    }

    /// The header fields the transport added to the request, redacted.
    var exposedAddedRequestHeaders: HTTPHeaders {
        guard !response.addedRequestHeaders.isEmpty else { return [:] }
        return LockStripes.field(\.cache.addedRequestHeaders, of: self) { policy.redactor.redactedHeaders(response.addedRequestHeaders) }
    }

    /// The captured body, redacted and capped.
    var exposedBody: HTTPCorePolicy.ExposedBody {
        LockStripes.field(\.cache.body, of: self) {
            policy.exposedBody(response.body, contentType: response.headers["Content-Type"], totalByteCount: streamedBodyByteCount)
        }
    }

    /// Every field, redacted.
    var exposed: HTTPEvent.ExposedResponse {
        let body = exposedBody
        return HTTPEvent.ExposedResponse(
            statusCode: response.statusCode,
            headers: exposedHeaders,
            body: body.body,
            isBodyTruncated: body.isTruncated,
            url: exposedURL,
            redirection: response.redirection
        )
    }

    /// Whether this record holds `response` itself (the same status, headers and body
    /// storage), so an event can share it instead of redacting the response again. Cheap:
    /// bodies are compared by storage, not byte by byte, except small ones.
    func holds(_ other: HTTPResponse) -> Bool {
        holds(other.head, body: other.body)
    }

    /// Whether this record holds a streamed response's `head`, its body not taken in.
    func holds(_ head: HTTPResponse.Head) -> Bool {
        holds(head, body: Data())
    }

    private func holds(_ other: HTTPResponse.Head, body: Data) -> Bool {
        let mine = response
        guard mine.requestID == other.requestID, mine.statusCode == other.statusCode, mine.url == other.url, mine.redirection == other.redirection, mine.addedRequestHeaders == other.addedRequestHeaders,
            mine.body.count == body.count, mine.headers == other.headers
        else { return false }
        if mine.body.count <= 64 { return mine.body == body }
        return mine.body.withUnsafeBytes { lhs in body.withUnsafeBytes { rhs in lhs.baseAddress == rhs.baseAddress } }
    }
}
