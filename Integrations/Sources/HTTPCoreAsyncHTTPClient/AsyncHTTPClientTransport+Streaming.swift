import AsyncHTTPClient
import Foundation
import HTTPCore
import NIOCore
import NIOHTTP1

extension AsyncHTTPClientTransport {
    /// Performs one exchange with AHC, streaming both bodies: returns when the response head
    /// arrives, with the body still coming from the connection.
    ///
    /// `body` is uploaded as AHC's connection takes it (`Content-Length` when its length is
    /// known, else chunked); the returned body is read from AHC's response body as the caller
    /// asks for more, never collected. See the type's documentation for the cap, early stops
    /// and errors.
    public func perform(_ request: HTTPCore.HTTPRequest, body: HTTPBody?) async throws -> (HTTPCore.HTTPResponse, HTTPBody) {
        var outgoing = Self.outgoing(request)
        if let body {
            if body.length != .known(0) || request.method != .get {
                outgoing.body = .stream(body.map { ByteBuffer(bytes: $0) }, length: Self.uploadLength(body.length))
            }
        } else if let data = request.body, !data.isEmpty || request.method != .get {
            outgoing.body = .bytes(ByteBuffer(bytes: data))
        }
        let deadline = Self.deadline(of: request)
        let response: HTTPClientResponse
        do {
            response = try await client.execute(outgoing, deadline: deadline)
        } catch {
            throw HTTPCore.HTTPError(asyncHTTPClientError: error, url: request.url)
        }
        let length = Self.responseLength(method: request.method, status: Int(response.status.code), headers: response.headers)
        let (responseBody, writer) = HTTPBody.makeStream(length: length)
        ResponseBodyRelay(
            writer: writer,
            maximumBytes: maximumResponseBytes,
            tooLarge: responseTooLarge(request.url),
            url: request.url
        ).start(from: response.body, length: length, deadline: deadline, on: client.eventLoopGroup.any())
        return (Self.head(of: response, for: request), responseBody)
    }

    private static func uploadLength(_ length: HTTPBody.Length) -> HTTPClientRequest.Body.Length {
        switch length {
        case .known(let count): .known(count)
        case .unknown: .unknown
        }
    }

    /// The length of a response body as the head tells it: none for `HEAD` and for the
    /// statuses that carry no body, the `Content-Length` when it is the only framing and the
    /// body arrives as sent (no `Content-Encoding` AHC may decode), else unknown.
    static func responseLength(method: HTTPCore.HTTPMethod, status: Int, headers: NIOHTTP1.HTTPHeaders) -> HTTPBody.Length {
        if method == .head || (100..<200).contains(status) || status == 204 || status == 304 { return .known(0) }
        guard !headers.contains(name: "Transfer-Encoding") else { return .unknown }
        let encodings = headers["Content-Encoding"].filter { $0.lowercased() != "identity" }
        guard encodings.isEmpty else { return .unknown }
        let lengths = Set(headers["Content-Length"].flatMap { $0.split(separator: ",") }.map { $0.trimmingCharacters(in: .whitespaces) })
        guard lengths.count == 1, let length = lengths.first.flatMap({ Int64($0) }), length >= 0 else { return .unknown }
        return .known(length)
    }
}
