import Foundation

extension HTTPEvent {
    /// A request's redacted fields as one value, for the sinks that keep or rewrite them (the
    /// request that got the status, after redirects: ``HTTPEvent/finalRequest``).
    package struct ExposedRequest: Sendable, Hashable {
        package var id: HTTPRequest.ID
        package var method: HTTPMethod
        package var url: String
        package var headers: HTTPHeaders
        package var body: Data?
        package var isBodyTruncated: Bool
        package var metadata: [String: String] = [:]

        package init(
            id: HTTPRequest.ID = HTTPRequest.ID(rawValue: 0), method: HTTPMethod, url: String, headers: HTTPHeaders = [:], body: Data? = nil,
            isBodyTruncated: Bool = false, metadata: [String: String] = [:]
        ) {
            self.id = id
            self.method = method
            self.url = url
            self.headers = headers
            self.body = body
            self.isBodyTruncated = isBodyTruncated
            self.metadata = metadata
        }
    }

    /// A response's redacted fields as one value, for the sinks that keep them past the event.
    package struct ExposedResponse: Sendable, Hashable {
        package var statusCode: Int
        package var headers: HTTPHeaders
        package var body: Data?
        package var isBodyTruncated: Bool
        package var url: String
        package var redirection: HTTPRedirection?

        package var status: HTTPResponse.Status { HTTPResponse.Status(code: statusCode) }
    }
}
