import Foundation
import HTTPCore
import HTTPCoreObservation
import HTTPTypes

extension HTTPTypes.HTTPResponse {
    /// An HTTPCore response head as a swift-http-types response: status code and every header
    /// field in order.
    ///
    /// - Parameter head: The head, as a streaming call returns it.
    /// - Throws: ``HTTPTypesConversionError`` for a status outside 100 to 999 or a field that
    ///   HTTP does not allow.
    public init(_ head: HTTPCore.HTTPResponse.Head) throws(HTTPTypesConversionError) {
        guard (100...999).contains(head.statusCode) else { throw .invalidStatus(head.statusCode) }
        self.init(status: Status(code: head.statusCode), headerFields: try HTTPFields(head.headers))
    }

    /// An HTTPCore response's head as a swift-http-types response, as the head alone converts;
    /// the body stays with the HTTPCore response.
    ///
    /// - Parameter response: The response whose head to convert.
    /// - Throws: ``HTTPTypesConversionError`` for a status outside 100 to 999 or a field that
    ///   HTTP does not allow.
    public init(_ response: HTTPCore.HTTPResponse) throws(HTTPTypesConversionError) {
        try self.init(response.head)
    }
}

extension HTTPCore.HTTPResponse.Head {
    /// A swift-http-types response as an HTTPCore response head, for the request `requestID`
    /// made for `url`.
    ///
    /// - Parameters:
    ///   - response: The status and header fields.
    ///   - requestID: The identifier of the request it answers.
    ///   - url: The final URL.
    public init(_ response: HTTPTypes.HTTPResponse, requestID: HTTPCore.HTTPRequest.ID, url: URL) {
        self.init(requestID: requestID, statusCode: response.status.code, headers: HTTPCore.HTTPHeaders(response.headerFields), url: url)
    }
}

extension HTTPCore.HTTPResponse {
    /// A swift-http-types response as an HTTPCore response to the request `requestID` made
    /// for `url`, with `body`.
    ///
    /// - Parameters:
    ///   - response: The status and header fields.
    ///   - body: The body; empty for none.
    ///   - requestID: The identifier of the request it answers.
    ///   - url: The final URL.
    public init(_ response: HTTPTypes.HTTPResponse, body: Data = Data(), requestID: HTTPCore.HTTPRequest.ID, url: URL) {
        self.init(head: Head(response, requestID: requestID, url: url), body: body)
    }
}
