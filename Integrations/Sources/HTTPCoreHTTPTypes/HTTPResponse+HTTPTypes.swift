import Foundation
import HTTPCore
import HTTPCoreObservation
import HTTPTypes

extension HTTPTypes.HTTPResponse {
    /// An HTTPCore response head as a swift-http-types response: status code and every header
    /// field in order. The body stays with the HTTPCore response.
    ///
    /// - Throws: ``HTTPTypesConversionError`` for a status outside 100 to 999 or a field that
    ///   HTTP does not allow.
    public init(_ response: HTTPCore.HTTPResponse) throws(HTTPTypesConversionError) {
        guard (100...999).contains(response.statusCode) else { throw .invalidStatus(response.statusCode) }
        self.init(status: Status(code: response.statusCode), headerFields: try HTTPFields(response.headers))
    }
}

extension HTTPCore.HTTPResponse {
    /// A swift-http-types response as an HTTPCore response to the request `requestID` made
    /// for `url`, with `body`.
    public init(_ response: HTTPTypes.HTTPResponse, body: Data = Data(), requestID: HTTPCore.HTTPRequest.ID, url: URL) {
        self.init(requestID: requestID, statusCode: response.status.code, headers: HTTPCore.HTTPHeaders(response.headerFields), body: body, url: url)
    }
}
