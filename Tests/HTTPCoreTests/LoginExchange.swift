import Foundation
import HTTPCore

/// The exchange the tests of events as values make their events of: a login POST whose query,
/// `Authorization` header and body each hold a secret, answered with a cookie, at a fixed time.
enum LoginExchange {
    /// The request.
    static let request = HTTPRequest(
        method: .post, url: URL(string: "https://api.example.com/login?token=t")!, headers: ["Authorization": "Bearer s3cret"],
        body: Data(#"{"password":"hunter2"}"#.utf8)
    )

    /// When it started.
    static let start = Date(timeIntervalSince1970: 1_800_000_000)

    /// A response of `status` to ``request``: `Set-Cookie: session=abc` and the body `ok`.
    static func response(_ status: Int) -> HTTPResponse {
        HTTPResponse(requestID: request.id, statusCode: status, headers: ["Set-Cookie": "session=abc"], body: Data("ok".utf8), url: request.url)
    }
}
