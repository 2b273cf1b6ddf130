import Foundation
import HTTPCore

/// One entry of a HAR file as a replaying transport reads it: the request it answers and what
/// it answers with.
struct RecordedExchange: Sendable {
    /// The request as recorded, redacted when it was recorded.
    struct Request: Sendable {
        var method: String
        var url: String
        var headers: HTTPHeaders
        var body: Data?
    }

    /// The response head as recorded, with its body's pieces.
    struct Response: Sendable {
        var statusCode: Int
        var headers: HTTPHeaders
        /// The body in the pieces it is replayed in: one for a whole body, one per recorded
        /// message for a stream.
        var pieces: [Piece]
    }

    /// A piece of a response body and when it came, in seconds after the head.
    struct Piece: Sendable {
        var bytes: [UInt8]
        var delay: Double
    }

    /// How the exchange ended.
    enum Outcome: Sendable {
        /// A response, whole.
        case response(Response)
        /// A response whose body then failed with the error.
        case failedAfterHead(Response, HTTPError)
        /// No response: the error.
        case failed(HTTPError)
    }

    /// Its position among the file's entries, from 0.
    var index: Int
    var request: Request
    var outcome: Outcome
    /// Seconds from the request to the response head, as recorded (HAR's `timings.wait` and
    /// the phases before it).
    var headDelay: Double

    /// `entry N, METHOD url`, as the error of a request that matched nothing names an entry:
    /// without the URL's query, which error messages never hold (its items are compared one
    /// by one, redacted, in the difference).
    var summary: String { "entry \(index), \(request.method) \(Self.withoutQuery(request.url))" }

    /// `url` up to its query or fragment.
    static func withoutQuery(_ url: String) -> String {
        String(url.prefix { $0 != "?" && $0 != "#" })
    }
}
