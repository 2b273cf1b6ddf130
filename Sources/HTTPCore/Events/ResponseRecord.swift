import Foundation
import HTTPCoreConcurrency

/// A raw response and its policy-exposed form, computed once, on first read.
final class ResponseRecord: Sendable {
    let response: HTTPResponse
    let policy: HTTPCorePolicy
    /// For a streamed body: the bytes received so far (`response.body` then holds their first
    /// bytes, as captured); `nil` for a response received whole.
    let streamedBodyByteCount: Int?
    private let cache = Locked<HTTPEvent.Response?>(nil)

    init(response: HTTPResponse, policy: HTTPCorePolicy, streamedBodyByteCount: Int? = nil) {
        self.response = response
        self.policy = policy
        self.streamedBodyByteCount = streamedBodyByteCount
    }

    /// The bytes of the body received.
    var bodyByteCount: Int { streamedBodyByteCount ?? response.body.count }

    /// Whether the redacted form was computed yet.
    var isExposed: Bool { cache.withLock { $0 != nil } }

    var exposed: HTTPEvent.Response {
        cache.value {
            let body = policy.exposedBody(response.body, contentType: response.headers["Content-Type"], totalByteCount: streamedBodyByteCount)
            return HTTPEvent.Response(
                statusCode: response.statusCode,
                headers: policy.redactor.redactedHeaders(response.headers),
                body: body.body,
                isBodyTruncated: body.isTruncated,
                url: policy.redactor.redactedURL(response.url)
            )
        }
    }

    /// Whether this record holds `response` itself (the same status, headers and body
    /// storage), so an event can share it instead of redacting the response again. Cheap:
    /// bodies are compared by storage, not byte by byte, except small ones.
    func holds(_ other: HTTPResponse) -> Bool {
        let mine = response
        guard mine.requestID == other.requestID, mine.statusCode == other.statusCode, mine.url == other.url,
            mine.body.count == other.body.count, mine.headers == other.headers
        else { return false }
        if mine.body.count <= 64 { return mine.body == other.body }
        return mine.body.withUnsafeBytes { lhs in other.body.withUnsafeBytes { rhs in lhs.baseAddress == rhs.baseAddress } }
    }
}
