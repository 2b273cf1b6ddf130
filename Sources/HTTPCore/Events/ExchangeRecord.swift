import Foundation

/// The raw request of one exchange and its policy-exposed form, computed once, on first read.
///
/// Shared by every event of the exchange. `exposed` runs the redactor on the thread that
/// reads it first (an observer's delivery), never on the request path.
final class ExchangeRecord: Sendable {
    let request: HTTPRequest
    let policy: HTTPCorePolicy
    let correlationID: String?
    private let cache = Locked<HTTPEvent.Request?>(nil)

    init(request: HTTPRequest, policy: HTTPCorePolicy, correlationID: String?) {
        self.request = request
        self.policy = policy
        self.correlationID = correlationID
    }

    /// Whether the redacted form was computed yet.
    var isExposed: Bool { cache.withLock { $0 != nil } }

    var exposed: HTTPEvent.Request {
        cache.value {
            let body = policy.exposedBody(request.body, contentType: request.headers["Content-Type"])
            return HTTPEvent.Request(
                id: request.id,
                method: request.method,
                url: policy.redactor.redactedURL(request.url),
                headers: policy.redactor.redactedHeaders(request.headers),
                body: body.body,
                isBodyTruncated: body.isTruncated
            )
        }
    }
}

/// A raw response and its policy-exposed form, computed once, on first read.
final class ResponseRecord: Sendable {
    let response: HTTPResponse
    let policy: HTTPCorePolicy
    private let cache = Locked<HTTPEvent.Response?>(nil)

    init(response: HTTPResponse, policy: HTTPCorePolicy) {
        self.response = response
        self.policy = policy
    }

    var exposed: HTTPEvent.Response {
        cache.value {
            let body = policy.exposedBody(response.body, contentType: response.headers["Content-Type"])
            return HTTPEvent.Response(
                statusCode: response.statusCode,
                headers: policy.redactor.redactedHeaders(response.headers),
                body: body.body,
                isBodyTruncated: body.isTruncated,
                url: policy.redactor.redactedURL(response.url)
            )
        }
    }
}

extension Locked {
    /// The cached value, computed by `compute` outside the lock on first use. Two first
    /// readers may both compute; the values are equal, and one is kept.
    func value<Wrapped>(orCompute compute: () -> Wrapped) -> Wrapped where Value == Wrapped? {
        if let cached = withLock({ $0 }) { return cached }
        let computed = compute()
        return withLock { cache in
            if let cached = cache { return cached }
            cache = computed
            return computed
        }
    }
}
