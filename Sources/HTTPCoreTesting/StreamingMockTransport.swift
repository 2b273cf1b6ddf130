import Foundation
import HTTPCore
import HTTPCoreConcurrency

/// A transport whose response bodies a test writes by hand, piece by piece, to see what a
/// client and its observers do while a body is still arriving.
///
/// Each exchange reads the request body it was given whole (recorded in ``uploads``), answers
/// at once with the scripted head, and hands the test the body's ``/HTTPCore/HTTPBody/Writer``:
///
/// ```swift
/// let transport = StreamingMockTransport(headers: ["Content-Type": "text/event-stream"])
/// async let result = client.send(request) { _, body in try await body.collect(upTo: 1 << 20) }
/// let writer = try await transport.nextWriter()
/// try await writer.write(HTTPBody.ByteChunk("data: hi\n\n".utf8))
/// writer.finish()
/// ```
public final class StreamingMockTransport: HTTPTransport {
    private struct State: Sendable {
        var writers: [HTTPBody.Writer] = []
        var handedOut = 0
        var uploads: [Data] = []
        var terminations = 0
    }

    private let statusCodes: [Int]
    private let headers: HTTPHeaders
    private let length: HTTPBody.Length
    private let state = AsyncCondition(State())

    /// Creates a transport that answers every exchange with this head.
    ///
    /// - Parameters:
    ///   - statusCode: The status of every response; 200 by default.
    ///   - headers: The headers of every response; none by default.
    ///   - length: What every response body declares of its length; unknown by default.
    public convenience init(statusCode: Int = 200, headers: HTTPHeaders = [:], length: HTTPBody.Length = .unknown) {
        self.init(statusCodes: [statusCode], headers: headers, length: length)
    }

    /// Creates a transport that answers its exchanges with these statuses in turn, the last
    /// one for every exchange after them.
    ///
    /// - Parameters:
    ///   - statusCodes: The statuses of the responses, in order; an empty list is `[200]`.
    ///   - headers: The headers of every response; none by default.
    ///   - length: What every response body declares of its length; unknown by default.
    public init(statusCodes: [Int], headers: HTTPHeaders = [:], length: HTTPBody.Length = .unknown) {
        self.statusCodes = statusCodes.isEmpty ? [200] : statusCodes
        self.headers = headers
        self.length = length
    }

    /// The request bodies received, in order.
    public var uploads: [Data] { state.read(\.uploads) }

    /// How many response bodies their reader stopped before the end.
    package var terminationCount: Int { state.read(\.terminations) }

    /// The writer of the next exchange's response body, once that exchange has started.
    ///
    /// - Parameter timeout: The longest wait for the exchange, in seconds; it only bounds a
    ///   hang.
    /// - Returns: The writer of that exchange's response body: write, then finish or fail it.
    /// - Throws: An error that says what was awaited, after `timeout`.
    public func nextWriter(timeout: TimeInterval = 60) async throws -> HTTPBody.Writer {
        let index = state.update { state in
            defer { state.handedOut += 1 }
            return state.handedOut
        }
        let ready = try await state.wait(timeout: timeout, until: { $0.writers.count > index })
        return ready.writers[index]
    }

    /// Waits until `count` response bodies were stopped by their reader.
    ///
    /// - Parameters:
    ///   - count: How many stopped bodies to wait for, since the transport was created.
    ///   - timeout: The longest wait, in seconds; it only bounds a hang.
    /// - Throws: An error that says what was awaited, after `timeout`.
    public func waitForTerminations(_ count: Int, timeout: TimeInterval = 60) async throws {
        _ = try await state.wait(timeout: timeout, until: { $0.terminations >= count })
    }

    /// Reads the request body, then answers with the head and a body the test writes.
    ///
    /// - Parameters:
    ///   - request: The request head.
    ///   - body: The request body, read whole and kept in ``uploads``.
    /// - Returns: The scripted head and a body written through ``nextWriter(timeout:)``.
    /// - Throws: What reading the request body throws.
    public func perform(_ request: HTTPRequest, body: HTTPBody?) async throws -> (HTTPResponse.Head, HTTPBody) {
        let upload = try await body?.collect(upTo: 1 << 30) ?? request.body ?? Data()
        let (responseBody, writer) = HTTPBody.makeStream(length: length, bufferSize: 1024)
        writer.onTermination { [state] in state.update { $0.terminations += 1 } }
        let statusCode = state.update { state in
            state.uploads.append(upload)
            state.writers.append(writer)
            return statusCodes[min(state.writers.count, statusCodes.count) - 1]
        }
        return (HTTPResponse.Head(requestID: request.id, statusCode: statusCode, headers: headers, url: request.url), responseBody)
    }
}
