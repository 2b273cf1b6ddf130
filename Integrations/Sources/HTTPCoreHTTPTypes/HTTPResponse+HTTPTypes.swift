import Foundation
import HTTPCore
import HTTPTypes

extension HTTPTypes.HTTPResponse {
    /// An HTTPCore response head as a swift-http-types response: status code and every header
    /// field in order. A swift-http-types response is a head, so a whole response converts its
    /// ``/HTTPCore/HTTPResponse/head``; the body stays with the HTTPCore response.
    ///
    /// - Parameter head: The head, as a streaming call returns it, or a response's.
    /// - Throws: ``HTTPTypesConversionError`` for a status outside 100 to 999 or a field that
    ///   HTTP does not allow.
    public init(_ head: HTTPCore.HTTPResponse.Head) throws(HTTPTypesConversionError) {
        guard (100...999).contains(head.statusCode) else { throw .invalidStatus(head.statusCode) }
        self.init(status: Status(code: head.statusCode), headerFields: try HTTPFields(head.headers))
    }
}

extension HTTPCore.HTTPResponse.Head {
    /// A swift-http-types response as an HTTPCore response head, for the request `requestID`
    /// made for `url`; `HTTPResponse(head:body:)` makes a whole response of it.
    ///
    /// - Parameters:
    ///   - response: The status and header fields.
    ///   - requestID: The identifier of the request it answers.
    ///   - url: The final URL.
    public init(_ response: HTTPTypes.HTTPResponse, requestID: HTTPCore.HTTPRequest.ID, url: URL) {
        self.init(requestID: requestID, statusCode: response.status.code, headers: HTTPCore.HTTPHeaders(response.headerFields), url: url)
    }
}
