import Foundation
import HTTPCore
import HTTPCoreObservation
import HTTPCoreConcurrency
import HTTPCoreLoopback

extension TransportConformance {
    /// How large the streamed download and upload of ``streamingChecks(sizes:)`` are.
    package struct StreamingSizes: Sendable, Hashable {
        /// Bytes of the streamed download.
        package var downloadBytes: Int64
        /// Bytes of the streamed upload.
        package var uploadBytes: Int64

        /// Creates sizes for the download and the upload.
        package init(downloadBytes: Int64, uploadBytes: Int64) {
            self.downloadBytes = downloadBytes
            self.uploadBytes = uploadBytes
        }

        /// 32 MiB down, 16 MiB up: seconds in a debug or TSan build, for `swift test`.
        package static let quick = StreamingSizes(downloadBytes: 32 << 20, uploadBytes: 16 << 20)
        /// 1 GiB down, 256 MiB up, as issue 21 asks; for release builds and the benchmark.
        package static let full = StreamingSizes(downloadBytes: 1 << 30, uploadBytes: 256 << 20)
    }

    /// The names of the ``streamingChecks(sizes:)`` a transport that only buffers passes through
    /// `HTTPBufferedTransport` (the others need the body before its end).
    package static let bufferingStreamingCheckNames: Set<String> = [
        "a streamed download arrives in order",
        "a streamed upload arrives in order",
        "a request body whose sequence throws fails as request_body_failed with the caller's error",
        "a chunked response of unknown length streams",
        "a body cut mid-way fails with connection_lost and the bytes received",
        "a consumer that stops early ends cancelled",
        "the deadline before the head is a timeout, from the transport",
        "the deadline mid-body is a timeout",
    ]

    /// Checks of ``/HTTPCore/HTTPClient/send(_:body:receive:isolation:)`` and ``/HTTPCore/HTTPClient/send(_:body:)``:
    /// a streamed download and upload, an upload whose sequence throws (`request_body_failed`,
    /// the caller's error as `underlyingError`), chunked framing, a body cut mid-way, a consumer that
    /// stops early, a body dropped unread (the connection released), task cancellation and the
    /// deadline mid-body, and server-sent events that arrive while the server is still sending.
    ///
    /// Each asserts bytes (by ``/HTTPCoreLoopback/LoopbackBodyDigest``), errors and the exchange's exact events.
    /// Memory is not asserted (the benchmark measures it), so a transport that buffers passes
    /// some of them only; a streaming transport passes them all. Run them with
    /// ``run(_:only:makeClient:)``. The download is 32 MiB and the upload 16 MiB: seconds in a
    /// debug or TSan build.
    ///
    /// - Returns: The streaming checks, in order.
    public static func streamingChecks() -> [Check] {
        streamingChecks(sizes: .quick)
    }

    /// The streaming checks with a download and an upload of `sizes`: ``streamingChecks()``
    /// with ``StreamingSizes/full`` for release builds and the benchmark.
    package static func streamingChecks(sizes: StreamingSizes) -> [Check] {
        [
            Check(name: "a streamed download arrives in order") { harness in
                let size = sizes.downloadBytes
                harness.server.route("GET", "/download", streaming: { _, writer in
                    try writer.writeHead(framing: .contentLength(size))
                    try writer.writePattern(byteCount: size)
                })
                let request = HTTPRequest(url: harness.server.url("/download"), timeout: 600)
                let digest = try await harness.client.send(request) { response, body in
                    try expect(response.statusCode, 200, "status")
                    return try await readDigest(of: body)
                }
                try expect(digest, LoopbackBodyPattern.digest(byteCount: size), "body received")
                let terminal = try await expectEvents(
                    harness, request, [.requestCreated, .requestStarted, .responseReceived, .requestSucceeded]
                )
                try expect(terminal.responseBodyByteCount, Int(size), "responseBodyByteCount")
                try expect(terminal.isStreamed, true, "isStreamed")
            },
            Check(name: "a streamed upload arrives in order") { harness in
                let size = sizes.uploadBytes
                harness.server.route("PUT", "/upload", requestBody: .digestOnly) { _ in .text("stored") }
                let request = HTTPRequest(method: .put, url: harness.server.url("/upload"), timeout: 600)
                let upload = HTTPBody(length: .known(size)) { LoopbackBodyPattern.Chunks(byteCount: size) }
                let text = try await harness.client.send(request, body: upload) { _, body in
                    String(decoding: try await body.collect(upTo: 1024), as: UTF8.self)
                }
                try expect(text, "stored", "answer")
                try expect(harness.server.requests.map(\.bodyDigest), [LoopbackBodyPattern.digest(byteCount: size)], "bodies the server read")
                let terminal = try await expectEvents(
                    harness, request, [.requestCreated, .requestStarted, .responseReceived, .requestSucceeded]
                )
                try expect(terminal.requestBodyByteCount, Int(size), "requestBodyByteCount")
            },
            Check(name: "a request body whose sequence throws fails as request_body_failed with the caller's error") { harness in
                harness.server.route("POST", "/upload", requestBody: .digestOnly) { _ in .text("stored") }
                // Unknown length, streamed; known and small, which a transport may collect first.
                for length in [HTTPBody.Length.unknown, .known(100)] {
                    let request = HTTPRequest(method: .post, url: harness.server.url("/upload"), timeout: 60)
                    let upload = HTTPBody(AsyncThrowingStream { continuation in
                        for _ in 0..<2 { continuation.yield(HTTPBody.ByteChunk(repeating: 0x61, count: 10)) }
                        continuation.finish(throwing: UploadFailure.diskGone)
                    }, length: length)
                    let expected = HTTPError.transport(.requestBodyFailed, message: "request body: the body's sequence threw UploadFailure after 20 bytes")
                    do {
                        _ = try await harness.client.send(request, body: upload)
                        throw Failure("no error (\(length))")
                    } catch let error as HTTPError {
                        try expect(error, expected, "error (\(length))")
                        try expect(error.underlyingError as? UploadFailure, .diskGone, "underlyingError (\(length))")
                    }
                    let terminal = try await expectEvents(
                        harness, request, [.requestCreated, .requestStarted, .responseReceived, .requestFailed], orWithoutHead: true
                    )
                    try expect(terminal.error, expected, "error of the failed event (\(length))")
                }
            },
            Check(name: "a chunked response of unknown length streams") { harness in
                // Uneven pieces, so chunk boundaries fall anywhere in the pattern.
                let pieces: [Int64] = [1, 65_536, 7, 1_000_000, 4_194_304, 13]
                harness.server.route("GET", "/chunked", streaming: { _, writer in
                    try writer.writeHead(framing: .chunked)
                    for piece in pieces { try writer.writePattern(byteCount: piece) }
                })
                let request = HTTPRequest(url: harness.server.url("/chunked"), timeout: 120)
                let digest = try await harness.client.send(request) { response, body in
                    try expect(response.headers["Content-Length"], nil, "Content-Length")
                    return try await readDigest(of: body)
                }
                let size = pieces.reduce(0, +)
                try expect(digest, LoopbackBodyPattern.digest(byteCount: size), "body received")
                let terminal = try await expectEvents(
                    harness, request, [.requestCreated, .requestStarted, .responseReceived, .requestSucceeded]
                )
                try expect(terminal.responseBodyByteCount, Int(size), "responseBodyByteCount")
            },
            Check(name: "a body cut mid-way fails with connection_lost and the bytes received") { harness in
                let sent: Int64 = 3 << 20
                harness.server.route("GET", "/cut", streaming: { _, writer in
                    try writer.writeHead(framing: .contentLength(8 << 20))
                    try writer.writePattern(byteCount: sent)
                    writer.dropConnection()
                })
                let request = HTTPRequest(url: harness.server.url("/cut"), timeout: 120)
                var received = LoopbackBodyDigest()
                do {
                    try await harness.client.send(request) { _, body in
                        for try await chunk in body { received.update(chunk) }
                    }
                    throw Failure("no error after \(received.byteCount) bytes")
                } catch let error as HTTPError {
                    try expect(error.code, .connectionLost, "error")
                }
                // A streaming transport hands over what arrived, a buffering one nothing. What
                // arrived is the start of what was sent: bytes still in flight when a connection
                // breaks may be lost (AsyncHTTPClient hands over about half of them).
                guard received.byteCount <= sent, received == LoopbackBodyPattern.digest(byteCount: received.byteCount) else {
                    throw Failure("bytes handed over: expected the start of the \(sent) sent, got \(received)")
                }
                let terminal = try await expectEvents(harness, request, [.requestCreated, .requestStarted, .responseReceived, .requestFailed], orWithoutHead: true)
                try expect(terminal.error?.code, .connectionLost, "error of the failed event")
                try expect(terminal.responseBodyByteCount ?? 0, Int(received.byteCount), "responseBodyByteCount")
            },
            Check(name: "a consumer that stops early ends cancelled") { harness in
                // More than socket buffers hold, so a streaming transport is still receiving.
                let size: Int64 = 16 << 20
                harness.server.route("GET", "/long", streaming: { _, writer in
                    try writer.writeHead(framing: .contentLength(size))
                    try writer.writePattern(byteCount: size)
                })
                let request = HTTPRequest(url: harness.server.url("/long"), timeout: 120)
                let first = try await harness.client.send(request) { _, body in
                    var iterator = body.makeAsyncIterator()
                    return try await iterator.next()
                }
                guard let first, !first.isEmpty else { throw Failure("no first chunk") }
                try expect(first, LoopbackBodyPattern.chunk(at: 0, count: first.count), "first chunk")
                // A buffering transport hands the whole body as one chunk: that read reached the end.
                let terminal: HTTPEvent.Name = first.count == Int(size) ? .requestSucceeded : .requestCancelled
                _ = try await expectEvents(harness, request, [.requestCreated, .requestStarted, .responseReceived, terminal])
            },
            Check(name: "a body dropped unread ends cancelled and releases the connection") { harness in
                let gate = harness.server.makeGate()
                let writeFailed = AsyncCondition(false)
                harness.server.route("GET", "/dropped", streaming: { _, writer in
                    try writer.writeHead(framing: .contentLength(64 << 20))
                    try writer.write("first")
                    try writer.wait(for: gate)
                    // More than socket buffers hold: a write fails once the client let go.
                    do {
                        try writer.writePattern(byteCount: 64 << 20)
                    } catch {
                        writeFailed.update { $0 = true }
                        throw error
                    }
                })
                defer { gate.open() }
                let request = HTTPRequest(url: harness.server.url("/dropped"), timeout: 120)
                // The body is dropped as this call's result goes away: unread.
                let status = try await harness.client.send(request, body: nil).0.statusCode
                try expect(status, 200, "status")
                _ = try await expectEvents(harness, request, [.requestCreated, .requestStarted, .responseReceived, .requestCancelled])
                gate.open()
                _ = try await writeFailed.wait(timeout: 60, until: { $0 }) { _ in
                    Failure("the server could still send 60 s after the body was dropped: the connection was kept")
                }
            },
            Check(name: "task cancellation mid-body ends cancelled") { harness in
                let gate = harness.server.makeGate()
                harness.server.route("GET", "/held", streaming: { _, writer in
                    try writer.writeHead(framing: .chunked)
                    try writer.write("first")
                    try writer.wait(for: gate)
                    try writer.write("never read")
                })
                defer { gate.open() }
                let request = HTTPRequest(url: harness.server.url("/held"), timeout: 120)
                let firstRead = AsyncCondition(false)
                let client = harness.client
                let exchange = Task { () -> String in
                    do {
                        try await client.send(request) { _, body in
                            for try await _ in body { firstRead.update { $0 = true } }
                        }
                        return "no error"
                    } catch {
                        return "\(error)"
                    }
                }
                _ = try await firstRead.wait(timeout: 60, until: { $0 }) { _ in Failure("the first chunk did not arrive within 60 s") }
                exchange.cancel()
                try expect(await exchange.value, "\(HTTPError.cancelled)", "error")
                _ = try await expectEvents(harness, request, [.requestCreated, .requestStarted, .responseReceived, .requestCancelled])
            },
            Check(name: "the deadline before the head is a timeout, from the transport") { harness in
                // The client races no timer: only the transport, handed the deadline, ends this wait.
                let gate = harness.server.makeGate()
                harness.server.route("GET", "/silent", streaming: { _, writer in
                    try writer.wait(for: gate)
                    try writer.writeHead(framing: .contentLength(0))
                })
                defer { gate.open() }
                let request = HTTPRequest(url: harness.server.url("/silent"), timeout: 0.5)
                do {
                    _ = try await harness.client.send(request, body: nil)
                    throw Failure("no error")
                } catch let error as HTTPError {
                    try expect(error, .timeout, "error")
                }
                let terminal = try await expectEvents(harness, request, [.requestCreated, .requestStarted, .requestFailed])
                try expect(terminal.error, .timeout, "error of the failed event")
            },
            Check(name: "the deadline mid-body is a timeout") { harness in
                let gate = harness.server.makeGate()
                harness.server.route("GET", "/stalls", streaming: { _, writer in
                    try writer.writeHead(framing: .chunked)
                    try writer.write("first")
                    try writer.wait(for: gate)
                })
                defer { gate.open() }
                let request = HTTPRequest(url: harness.server.url("/stalls"), timeout: 1)
                do {
                    try await harness.client.send(request) { _, body in
                        for try await _ in body {}
                    }
                    throw Failure("no error")
                } catch let error as HTTPError {
                    try expect(error, .timeout, "error")
                }
                let terminal = try await expectEvents(
                    harness, request, [.requestCreated, .requestStarted, .responseReceived, .requestFailed], orWithoutHead: true
                )
                try expect(terminal.error, .timeout, "error of the failed event")
            },
            Check(name: "server-sent events arrive while the server is still sending") { harness in
                let gate = harness.server.makeGate()
                let events = ["event: delta\nid: 1\ndata: Hel\n\n", "event: delta\nid: 2\ndata: lo\n\n", "data: [DONE]\n\n"]
                harness.server.route("GET", "/events", streaming: { _, writer in
                    try writer.writeHead(headers: ["Content-Type": "text/event-stream"], framing: .chunked)
                    try writer.write(events[0])
                    // Opened by the client only once it has read the first event.
                    try writer.wait(for: gate)
                    try writer.write(events[1])
                    try writer.write(events[2])
                })
                defer { gate.open() }
                let request = HTTPRequest(url: harness.server.url("/events"), timeout: 120)
                let text = try await harness.client.send(request) { _, body in
                    var text = ""
                    for try await chunk in body {
                        text += String(decoding: chunk, as: UTF8.self)
                        if text.hasPrefix(events[0]) { gate.open() }
                    }
                    return text
                }
                try expect(text, events.joined(), "body")
                _ = try await expectEvents(
                    harness, request,
                    [.requestCreated, .requestStarted, .responseReceived, .responseMessage, .responseMessage, .responseMessage, .requestSucceeded]
                )
                let messages = harness.recorder.events(for: request.id).compactMap(\.message)
                try expect(messages.map(\.index), [0, 1, 2], "message indexes")
                try expect(messages.map(\.eventType), ["delta", "delta", nil], "event types")
                try expect(messages.map(\.eventID), ["1", "2", nil], "event IDs")
                try expect(messages.map(\.data), ["Hel", "lo", "[DONE]"], "event data")
            },
        ]
    }

    /// Runs checks against a client, each with a fresh loopback server and dispatcher.
    ///
    /// ```swift
    /// let failures = await TransportConformance.run { dispatcher in
    ///     HTTPTransportClient(transport: MyTransport(), dispatcher: dispatcher)
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - checks: The checks to run; ``checks`` by default, ``streamingChecks()`` for
    ///     the streaming ones.
    ///   - names: The names of the checks to run among `checks`; `nil` runs them all.
    ///   - makeClient: Builds the client under test for the given dispatcher.
    /// - Returns: One line per check that failed, its name and what differed; empty when the
    ///   client conforms.
    public static func run(
        _ checks: [Check] = TransportConformance.checks,
        only names: Set<String>? = nil,
        makeClient: @escaping @Sendable (HTTPEventDispatcher) -> any HTTPClient
    ) async -> [String] {
        var failures: [String] = []
        for check in checks where names?.contains(check.name) ?? true {
            do {
                let server = try LoopbackHTTPServer()
                defer { server.stop() }
                let dispatcher = HTTPEventDispatcher()
                let recorder = RecordingObserver()
                dispatcher.subscribe(recorder)
                try await check.run(Harness(server: server, client: makeClient(dispatcher), recorder: recorder))
            } catch {
                failures.append("\(check.name): \(error)")
            }
        }
        return failures
    }

    /// The digest of a whole body, read chunk by chunk without keeping it.
    private static func readDigest(of body: HTTPBody) async throws -> LoopbackBodyDigest {
        var digest = LoopbackBodyDigest()
        for try await chunk in body { digest.update(chunk) }
        return digest
    }

    /// Waits for the exchange's terminal event, checks the names of its events, and returns the
    /// terminal one. `orWithoutHead` also accepts the sequence without `received`, for a
    /// buffering transport that failed before it could hand over a head.
    /// What the request body of the check of a throwing sequence throws.
    private enum UploadFailure: Error, Equatable {
        case diskGone
    }

    private static func expectEvents(
        _ harness: Harness,
        _ request: HTTPRequest,
        _ names: [HTTPEvent.Name],
        orWithoutHead: Bool = false
    ) async throws -> HTTPEvent {
        _ = try await harness.recorder.waitForTerminalEvents(count: 1, timeout: 60)
        let events = harness.recorder.events(for: request.id)
        let actual = events.map(\.name)
        let accepted = orWithoutHead ? [names, names.filter { $0 != .responseReceived }] : [names]
        guard accepted.contains(actual) else {
            throw Failure("events: expected \(names.map(\.rawValue)), got \(actual.map(\.rawValue))")
        }
        guard let terminal = events.last else { throw Failure("no events") }
        return terminal
    }
}
