import Foundation
import HTTPCore
import HTTPTypes

extension HTTPTypes.HTTPRequest {
    /// An HTTPCore request as a swift-http-types request: method (extension methods too),
    /// scheme, authority and path from the URL, and every header field in order.
    ///
    /// The body, timeout, id and metadata have no place in `HTTPTypes.HTTPRequest`; send the
    /// body next to it as swift-openapi-runtime and AsyncHTTPClient do.
    ///
    /// - Throws: ``HTTPTypesConversionError`` for a field that HTTP does not allow.
    public init(_ request: HTTPCore.HTTPRequest) throws(HTTPTypesConversionError) {
        guard let method = Method(request.method.rawValue) else { throw .invalidMethod(request.method.rawValue) }
        self.init(method: method, url: request.url, headerFields: try HTTPFields(request.headers))
    }
}

extension HTTPCore.HTTPRequest {
    /// A swift-http-types request as an HTTPCore request, with the body and timeout HTTPCore
    /// adds; it gets a new ``/HTTPCore/HTTPRequest/ID``.
    ///
    /// - Throws: ``HTTPTypesConversionError`` when the request has no absolute URL (an
    ///   `OPTIONS *` or `CONNECT` request, or one without a scheme or authority).
    public init(_ request: HTTPTypes.HTTPRequest, body: Data? = nil, timeout: TimeInterval? = nil) throws(HTTPTypesConversionError) {
        guard let url = request.url else { throw .missingURL }
        guard let method = HTTPCore.HTTPMethod(request.method.rawValue) else { throw .invalidMethod(request.method.rawValue) }
        self.init(method: method, url: url, headers: HTTPCore.HTTPHeaders(request.headerFields), body: body, timeout: timeout)
    }
}
