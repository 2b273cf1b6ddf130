import Foundation
import HTTPCore

/// How a replaying transport decides that a recorded exchange answers a request.
///
/// By default the method and the URL must match: scheme, host, port, path, and the query items
/// in any order. Headers and the body are compared only when asked, and any query item,
/// header or JSON member can be left out of the comparison (a timestamp, a nonce, a trace id):
///
/// ```swift
/// var matching = ReplayMatching()
/// matching.ignoredQueryItems = ["cacheBuster"]
/// matching.body = .json(ignoring: ["requestedAt"])
/// ```
///
/// The request is redacted by the transport's redactor before it is compared, as the recorded
/// one was before it was written: a masked token in the fixture matches whatever token the
/// test sends.
public struct ReplayMatching: Sendable, Hashable {
    /// Which request headers must match.
    public enum Headers: Sendable, Hashable {
        /// None: headers are not compared.
        case ignored
        /// These, by name (case-insensitive): each must have the recorded value, or be absent
        /// from both.
        case named(Set<String>)
        /// All of them but these and ``ReplayMatching/volatileHeaders``: the same names with
        /// the same values, in any order.
        case all(except: Set<String>)
    }

    /// Whether, and how, the request body must match.
    public enum Body: Sendable, Hashable {
        /// It is not compared.
        case ignored
        /// Byte for byte, once redacted.
        case exact
        /// As JSON: the same values, members in any order, leaving out these members at any
        /// depth; a body that is not JSON is compared byte for byte.
        case json(ignoring: Set<String>)
    }

    /// Query items left out of the comparison, by name.
    public var ignoredQueryItems: Set<String>
    /// Which headers must match; none by default.
    public var headers: Headers
    /// Whether the body must match; not by default.
    public var body: Body

    /// Headers ``Headers/all(except:)`` never compares, since a client or a transport sets them
    /// anew for each request: `Date`, `User-Agent`, `Content-Length`, `traceparent`,
    /// `tracestate`, `X-Request-ID` and `X-Correlation-ID`.
    public static let volatileHeaders: Set<String> = [
        "date", "user-agent", "content-length", "traceparent", "tracestate", "x-request-id", "x-correlation-id",
    ]

    /// Matching by method and URL, and by headers and body as given.
    ///
    /// - Parameters:
    ///   - ignoredQueryItems: Query items left out of the comparison.
    ///   - headers: Which headers must match.
    ///   - body: Whether the body must match.
    public init(ignoredQueryItems: Set<String> = [], headers: Headers = .ignored, body: Body = .ignored) {
        self.ignoredQueryItems = ignoredQueryItems
        self.headers = headers
        self.body = body
    }
}
