import Foundation
import HTTPCore

/// One HTTP request as a ``LoopbackHTTPServer`` received it.
///
/// Values are recorded as they arrived on the wire: the target keeps its percent-encoding and
/// the header fields keep their spelling, order and repetitions. A chunked body is recorded
/// de-chunked, while its `Transfer-Encoding` header stays in `headers`.
public struct LoopbackRequest: Sendable, Hashable {
    /// The request method as sent, for example `"GET"`.
    public var method: String
    /// The request target as sent: path and query, for example `"/users?x=1"`.
    public var target: String
    /// The path part of the target, without the query, for example `"/users"`.
    public var path: String
    /// The query part of the target without the `?`, or `nil` when the target has none.
    public var query: String?
    /// The header fields in the order they arrived.
    public var headers: HTTPHeaders
    /// The body bytes, de-chunked when the request was sent chunked; empty when there was none,
    /// and when the route records only a digest (``BodyRecording/digestOnly``).
    public var body: Data
    /// The connection the request arrived on, numbered from 1 in order of acceptance.
    ///
    /// Two requests with the same value travelled over the same kept-alive connection.
    public var connectionID: Int

    /// Creates a request record; the server makes these, tests may build them to compare.
    public init(
        method: String,
        target: String,
        headers: HTTPHeaders = [:],
        body: Data = Data(),
        connectionID: Int = 1
    ) {
        self.method = method
        self.target = target
        (path, query) = Self.split(target)
        self.headers = headers
        self.body = body
        self.connectionID = connectionID
        streamedDigest = nil
    }

    /// Creates the record of a request whose body was not kept, only its digest.
    public init(method: String, target: String, headers: HTTPHeaders = [:], bodyDigest: LoopbackBodyDigest, connectionID: Int = 1) {
        self.init(method: method, target: target, headers: headers, connectionID: connectionID)
        streamedDigest = bodyDigest
    }

    /// Set when the route recorded only a digest; `bodyDigest` computes it from `body` otherwise.
    private var streamedDigest: LoopbackBodyDigest?

    /// The byte count and FNV-1a 64 hash of the body: recorded as it arrived for a route that
    /// keeps only a digest, computed from ``body`` (on each call) otherwise.
    public var bodyDigest: LoopbackBodyDigest {
        streamedDigest ?? LoopbackBodyDigest(of: body)
    }

    /// What a route keeps of a request body.
    public enum BodyRecording: Sendable, Hashable {
        /// The whole body in ``LoopbackRequest/body``, up to 256 MiB (a larger one gets 413).
        case whole
        /// Only ``LoopbackRequest/bodyDigest``, computed as the body is read, of any size:
        /// memory stays at the reader's 64 KiB whatever is uploaded.
        case digestOnly
    }

    /// Splits a request target into path and query, reducing an absolute-form target to its path.
    static func split(_ target: String) -> (path: String, query: String?) {
        var pathAndQuery = Substring(target)
        if !pathAndQuery.hasPrefix("/"), let scheme = pathAndQuery.range(of: "://") {
            let afterAuthority = pathAndQuery[scheme.upperBound...]
            pathAndQuery = afterAuthority.firstIndex(where: { $0 == "/" || $0 == "?" })
                .map { afterAuthority[$0...] } ?? "/"
        }
        guard let mark = pathAndQuery.firstIndex(of: "?") else {
            return (String(pathAndQuery), nil)
        }
        let path = pathAndQuery[..<mark]
        return (path.isEmpty ? "/" : String(path), String(pathAndQuery[pathAndQuery.index(after: mark)...]))
    }
}

extension LoopbackRequest {
    /// The body decoded as UTF-8, for assertions on text bodies.
    public var bodyText: String {
        String(decoding: body, as: UTF8.self)
    }
}
