import Foundation
import HTTPCore
import HTTPCoreObservation
import HTTPCoreConcurrency
import HTTPCoreConsole
import HTTPCoreDelivery
import HTTPCoreGenAI
import HTTPCoreTestPeers
import HTTPCoreTesting
import XCTest

final class ConsoleObserverTests: XCTestCase {
    private func printed(
        _ observer: (@escaping @Sendable (String) -> Void) -> ConsoleObserver,
        reply: MockTransport.Reply,
        request: HTTPRequest = HTTPRequest(
            method: .post,
            url: URL(string: "https://api.example.com/login?token=abc")!,
            headers: ["Authorization": "Bearer abc", "Content-Type": "application/json"],
            body: Data(#"{"user":"roy","password":"hunter2"}"#.utf8)
        )
    ) async throws -> [String] {
        let lines = Locked<[String]>([])
        let dispatcher = HTTPEventDispatcher()
        dispatcher.subscribe(observer { line in lines.withLock { $0.append(line) } })
        _ = try? await HTTPTransportClient(transport: MockTransport(default: reply), dispatcher: dispatcher, policy: .debug).send(request)
        await dispatcher.flush()
        return lines.withLock { $0 }
    }

    func testOneRedactedLinePerExchange() async throws {
        let lines = try await printed({ ConsoleObserver(write: $0) }, reply: .status(201, body: Data(repeating: 1, count: 2048)))
        XCTAssertEqual(lines.count, 1)
        let line = try XCTUnwrap(lines.first)
        XCTAssertTrue(line.hasPrefix("POST https://api.example.com/login?token=[REDACTED] -> 201 ("), line)
        XCTAssertTrue(line.hasSuffix(" ms, 35 B up, 2.0 KB down)"), line)
    }

    func testARedirectedExchangeShowsItsRouteAndTheRequestThatGotTheStatus() async throws {
        let redirected = MockTransport.Reply.redirected(
            to: URL(string: "https://api.example.com/welcome")!,
            HTTPRedirection(method: .get, resentBody: false, statusCodes: [303]),
            body: Data("hi".utf8)
        )
        let lineOutput = try await printed({ ConsoleObserver(write: $0) }, reply: redirected)
        let line = try XCTUnwrap(lineOutput.first)
        XCTAssertTrue(line.hasPrefix("POST https://api.example.com/login?token=[REDACTED] → 303 → GET https://api.example.com/welcome -> 200 ("), line)
        let blockOutput = try await printed({ ConsoleObserver(format: .blocks, body: .text, write: $0) }, reply: redirected)
        let blocks = try XCTUnwrap(blockOutput.first)
        let lines = blocks.split(separator: "\n").map(String.init)
        XCTAssertEqual(Array(lines.prefix(2)), [
            "[REDIRECTED] POST https://api.example.com/login?token=[REDACTED] → 303 → GET https://api.example.com/welcome",
            "[REQUEST] GET https://api.example.com/welcome",
        ])
        XCTAssertFalse(blocks.contains("hunter2") || blocks.contains("\"user\""), "the GET carried no body: \(blocks)")
    }

    func testABodyThatBrokeAfterItsStatusIsAnErrorLineThatSaysWhichStatusCame() async throws {
        let lines = Locked<[String]>([])
        let dispatcher = HTTPEventDispatcher()
        dispatcher.subscribe(ConsoleObserver { line in lines.withLock { $0.append(line) } })
        let transport = StreamingMockTransport(statusCodes: [200])
        let client = HTTPTransportClient(transport: transport, dispatcher: dispatcher, policy: .debug)
        let read = Task { try await client.send(HTTPRequest(url: URL(string: "https://api.example.com/export")!), body: nil) { _, body in try await body.collect(upTo: 1 << 20).count } }
        let writer = try await transport.nextWriter()
        try await writer.write(HTTPBody.ByteChunk("partial".utf8))
        writer.finish(throwing: HTTPError.transport(.connectionLost, message: "reset"))
        let result = await read.result
        XCTAssertThrowsError(try result.get())
        await dispatcher.flush()
        let printed = lines.withLock { $0 }
        XCTAssertEqual(printed.count, 1)
        XCTAssertTrue(printed[0].hasPrefix("GET https://api.example.com/export -> 200, then failed: transport error [connection_lost]: reset ("), printed[0])
    }

    func testAStreamedLLMAnswerIsPrintedBeforeItsEvents() async throws {
        let lines = Locked<[String]>([])
        let dispatcher = HTTPEventDispatcher()
        dispatcher.subscribe(ConsoleObserver(format: .blocks, body: .text) { line in lines.withLock { $0.append(line) } })
        let transport = StreamingMockTransport(headers: ["Content-Type": "application/x-ndjson"])
        let client = HTTPTransportClient(transport: transport, dispatcher: dispatcher, policy: .debug.interpreting(.genAI))
        let read = Task { try await client.send(HTTPRequest(url: URL(string: "http://localhost:11434/api/chat")!), body: nil) { _, body in try await body.collect(upTo: 1 << 20).count } }
        let writer = try await transport.nextWriter()
        try await writer.write(HTTPBody.ByteChunk(#"{"model":"llama3","message":{"role":"assistant","content":"Blue"},"done":false}"#.utf8 + [0x0A]))
        try await writer.write(HTTPBody.ByteChunk(#"{"model":"llama3","message":{"role":"assistant","content":" light."},"done":true}"#.utf8 + [0x0A]))
        writer.finish()
        _ = try await read.value
        await dispatcher.flush()
        let printed = lines.withLock { $0 }.joined(separator: "\n")
        XCTAssertTrue(printed.contains("\n  answer (Ollama, 2 messages):\n    Blue light.\n  body ("), printed)
    }

    func testAStreamFromWhichNoAnswerTextCanBeAssembledSaysSoUnderItsHeading() async throws {
        let lines = Locked<[String]>([])
        let dispatcher = HTTPEventDispatcher()
        dispatcher.subscribe(ConsoleObserver(format: .blocks, body: .text) { line in lines.withLock { $0.append(line) } })
        let transport = StreamingMockTransport(headers: ["Content-Type": "application/x-ndjson"])
        let client = HTTPTransportClient(transport: transport, dispatcher: dispatcher, policy: .debug.interpreting(.genAI))
        let read = Task { try await client.send(HTTPRequest(url: URL(string: "http://localhost:11434/api/chat")!), body: nil) { _, body in try await body.collect(upTo: 1 << 20).count } }
        let writer = try await transport.nextWriter()
        try await writer.write(HTTPBody.ByteChunk(#"{"model":"llama3","message":{"role":"assistant","content":""},"done":false}"#.utf8 + [0x0A]))
        try await writer.write(HTTPBody.ByteChunk(#"{"model":"llama3","message":{"role":"assistant","content":""},"done":true}"#.utf8 + [0x0A]))
        writer.finish()
        _ = try await read.value
        await dispatcher.flush()
        let printed = lines.withLock { $0 }.joined(separator: "\n")
        XCTAssertTrue(printed.contains("\n  answer (Ollama, 2 messages): none, no answer text could be assembled from them\n  body ("), printed)
    }

    func testFailuresAndCancellationsAreLines() async throws {
        let failed = try await printed({ ConsoleObserver(write: $0) }, reply: .failure(.timeout))
        XCTAssertTrue(failed.first?.contains("-> failed: timed out (") ?? false, "\(failed)")
        let cancelled = try await printed({ ConsoleObserver(write: $0) }, reply: .failure(.cancelled))
        XCTAssertTrue(cancelled.first?.contains("-> cancelled (") ?? false, "\(cancelled)")
    }

    func testARetriedAttemptIsAWarningLineAndTheOutcomeCountsTheAttempts() async throws {
        let lines = Locked<[String]>([])
        let dispatcher = HTTPEventDispatcher()
        dispatcher.subscribe(ConsoleObserver(write: { line in lines.withLock { $0.append(line) } }))
        let transport = MockTransport()
        transport.enqueue(.status(503), .failure(.transport(.connectionLost, message: "reset")), .status(200))
        let retry = RetryMiddleware(backoff: Backoff(initial: 0, maximum: 0, jitter: .none))
        let client = HTTPTransportClient(transport: transport, middlewares: [retry], dispatcher: dispatcher, policy: .debug)
        _ = try await client.send(HTTPRequest(url: URL(string: "https://api.example.com/feed")!))
        await dispatcher.flush()
        let printed = lines.withLock { $0 }
        XCTAssertEqual(printed.count, 3, "\(printed)")
        XCTAssertTrue(printed[0].hasPrefix("GET https://api.example.com/feed -> 503, attempt 1 retried ("), printed[0])
        XCTAssertTrue(printed[1].hasPrefix("GET https://api.example.com/feed -> failed: transport error [connection_lost]: reset, attempt 2 retried ("), printed[1])
        XCTAssertTrue(printed[2].hasPrefix("GET https://api.example.com/feed -> 200 ("), printed[2])
        XCTAssertTrue(printed[2].hasSuffix(", 3 attempts)"), printed[2])
        let retried = try await retriedEvent()
        XCTAssertEqual(ConsoleObserver.level(of: try XCTUnwrap(retried)), .warning)
    }

    private func failure(_ path: String) -> HTTPEvent {
        let request = HTTPRequest(url: URL(string: "https://api.example.com/\(path)")!)
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        return .requestFailed(.timeout, request: request, startedAt: start, endedAt: start + 1)
    }

    /// The console's default delivery with room for `bufferLimit` events and `bufferByteLimit`
    /// bytes of them.
    private func configuration(
        bufferLimit: Int = ConsoleObserver.defaultConfiguration.bufferLimit,
        bufferByteLimit: Int = ConsoleObserver.defaultConfiguration.bufferByteLimit
    ) -> DeliveryConfiguration {
        var configuration = ConsoleObserver.defaultConfiguration
        configuration.bufferLimit = bufferLimit
        configuration.bufferByteLimit = bufferByteLimit
        return configuration
    }

    /// The reports of a console whose buffer overflowed once and dropped `dropped` events,
    /// with room for `bufferLimit` events and `bufferByteLimit` bytes: when the overflow
    /// started, and with the count when it ended.
    private func overflowReports(dropped: Int, bufferLimit: Int, bufferByteLimit: Int) -> [HTTPDiagnostic] {
        [
            DeliveryDiagnostic.overflowStarted(countLimit: bufferLimit, byteLimit: bufferByteLimit),
            DeliveryDiagnostic.overflowEnded(dropped: dropped),
        ].map { $0.diagnostic(source: "ConsoleObserver", items: "event") }
    }

    /// A console with `configuration` that handled a failure of "first" and is blocked
    /// writing it, until `release` is signalled; `lines` collects the lines written.
    private func consoleBlockedWritingItsFirstLine(
        minimumLevel: ConsoleObserver.Level = .info, configuration: DeliveryConfiguration = ConsoleObserver.defaultConfiguration
    ) async throws -> (console: ConsoleObserver, lines: Locked<[String]>, release: DispatchSemaphore) {
        let writing = DispatchSemaphore(value: 0)
        let released = DispatchSemaphore(value: 0)
        let lines = Locked<[String]>([])
        let console = ConsoleObserver(minimumLevel: minimumLevel, configuration: configuration) { line in
            if lines.withLock({ $0.isEmpty }) {
                writing.signal()
                _ = released.wait(timeout: .now() + 60)
            }
            lines.withLock { $0.append(line) }
        }
        console.handle(failure("first"))
        let writingFirst = await Task.detached { writing.wait(timeout: .now() + 60) }.value
        XCTAssertEqual(writingFirst, .success)
        return (console, lines, released)
    }

    /// A console whose first write ("first") blocked while five more events came ("a" to "e")
    /// into a buffer with room for two of them, by count (`bufferLimit`) or by bytes
    /// (`bufferByteLimit`): three were dropped, "d" and "e" wait; the write is released on
    /// return. The second value reads the URLs written.
    private func consoleThatDroppedThreeBehindABlockedWrite(
        bufferLimit: Int = 2,
        bufferByteLimit: Int = ConsoleObserver.defaultConfiguration.bufferByteLimit
    ) async throws -> (ConsoleObserver, @Sendable () -> [String]) {
        let delivery = configuration(bufferLimit: bufferLimit, bufferByteLimit: bufferByteLimit)
        let (console, lines, release) = try await consoleBlockedWritingItsFirstLine(configuration: delivery)
        // The queue is writing "first" and blocked: the next five wait in a buffer of two.
        for path in ["a", "b", "c", "d", "e"] { console.handle(failure(path)) }
        release.signal()
        return (console, { lines.withLock { $0.map { String($0.split(separator: " ")[1]) } } })
    }

    /// The reports `ConsoleObserver` made to `HTTPDiagnostics` while `body` ran; a component
    /// of an earlier test may still report there, and its reports are left out.
    private func consoleReports(during body: () async throws -> Void) async rethrows -> [HTTPDiagnostic] {
        let reports = Locked<[HTTPDiagnostic]>([])
        let previous = HTTPDiagnostics.handler
        HTTPDiagnostics.handler = { report in reports.withLock { $0.append(report) } }
        defer { HTTPDiagnostics.handler = previous }
        try await body()
        return reports.withLock { $0.filter { $0.source == "ConsoleObserver" } }
    }

    func testHandleReturnsWhileTheOutputIsBlockedAndTheLinesFollowInOrder() async throws {
        // The first write blocks until the test has handled all five events: written inline,
        // the first handle would wait 60 s for a release that comes only after it returned.
        let released = DispatchSemaphore(value: 0)
        let waits = Locked<[DispatchTimeoutResult]>([])
        let lines = Locked<[String]>([])
        let console = ConsoleObserver { line in
            if lines.withLock({ $0.isEmpty }) { waits.withLock { $0.append(released.wait(timeout: .now() + 60)) } }
            lines.withLock { $0.append(line) }
        }
        for path in ["a", "b", "c", "d", "e"] { console.handle(failure(path)) }
        released.signal()
        await console.flush()
        XCTAssertEqual(waits.withLock { $0 }, [.success], "the first write waited for the release, not the timeout")
        XCTAssertEqual(lines.withLock { $0.map { String($0.split(separator: " ")[1]) } }, [
            "https://api.example.com/a", "https://api.example.com/b", "https://api.example.com/c",
            "https://api.example.com/d", "https://api.example.com/e",
        ])
    }

    func testAnOutputThatCannotKeepUpDropsTheOldestWaitingAndReportsHowMany() async throws {
        var console: ConsoleObserver?
        let reports = try await consoleReports {
            let (dropping, written) = try await consoleThatDroppedThreeBehindABlockedWrite()
            await dropping.flush()
            XCTAssertEqual(written(), ["https://api.example.com/first", "https://api.example.com/d", "https://api.example.com/e"])
            console = dropping
        }
        XCTAssertEqual(reports, overflowReports(dropped: 3, bufferLimit: 2, bufferByteLimit: ConsoleObserver.defaultConfiguration.bufferByteLimit))
        let statistics = try XCTUnwrap(console).statistics
        XCTAssertEqual(
            [statistics.accepted, statistics.delivered, statistics.dropped, statistics.pending], [6, 3, 3, 0], "\(statistics)"
        )
    }

    func testAFlushReturnsOnlyOnceTheEventsHandledBeforeItAreWritten() async throws {
        let (console, lines, release) = try await consoleBlockedWritingItsFirstLine()
        for path in ["a", "b"] { console.handle(failure(path)) }
        let writtenWhenFlushed = Task {
            await console.flush()
            return lines.withLock { $0.count }
        }
        XCTAssertTrue(lines.withLock { $0.isEmpty }, "the first write is still blocked")
        release.signal()
        let written = await writtenWhenFlushed.value
        XCTAssertEqual(written, 3, "the flush returned with every event handled before it written")
    }

    /// What the event factories are for: an observer's output, checked without a client.
    func testAnObserverIsTestedWithoutAClient() async {
        let request = HTTPRequest(
            method: .post, url: URL(string: "https://api.example.com/login?token=abc")!, body: Data(#"{"password":"hunter2"}"#.utf8)
        )
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        let lines = Locked<[String]>([])
        let console = ConsoleObserver { line in lines.withLock { $0.append(line) } }
        console.handle(.requestFailed(.timeout, request: request, startedAt: start, endedAt: start + 30))
        await console.flush()
        XCTAssertEqual(lines.withLock { $0 }, ["POST https://api.example.com/login?token=[REDACTED] -> failed: timed out (30000.0 ms, 22 B up)"])
        let response = HTTPResponse(requestID: request.id, statusCode: 200, headers: [:], body: Data("{}".utf8), url: request.url)
        let cancelledAfterStatus = HTTPEvent.requestFailed(.cancelled, request: request, response: response, startedAt: start, endedAt: start + 1)
        XCTAssertEqual(
            ConsoleObserver.line(for: cancelledAfterStatus),
            "POST https://api.example.com/login?token=[REDACTED] -> 200, then cancelled (1000.0 ms, 22 B up, 2 B down)"
        )
    }

    private func retriedEvent() async throws -> HTTPEvent? {
        let recorder = RecordingObserver()
        let dispatcher = HTTPEventDispatcher()
        dispatcher.subscribe(recorder)
        let transport = MockTransport()
        transport.enqueue(.status(503), .status(200))
        let retry = RetryMiddleware(backoff: Backoff(initial: 0, maximum: 0, jitter: .none))
        _ = try await HTTPTransportClient(transport: transport, middlewares: [retry], dispatcher: dispatcher)
            .send(HTTPRequest(url: URL(string: "https://api.example.com/feed")!))
        return try await recorder.waitForTerminalEvents(count: 1).first { $0.name == .requestRetried }
    }

    func testMinimumLevelFilters() async throws {
        let cases: [(ConsoleObserver.Level, MockTransport.Reply, Int)] = [
            (.warning, .status(200), 0),
            (.warning, .status(503), 1),
            (.error, .status(503), 0),
            (.error, .failure(.invalidResponse), 1),
            (.debug, .status(200), 4),
        ]
        for (level, reply, expected) in cases {
            let lines = try await printed({ ConsoleObserver(minimumLevel: level, write: $0) }, reply: reply)
            XCTAssertEqual(lines.count, expected, "\(level)")
        }
    }

    func testBlocksWithPrettyJSONBodies() async throws {
        let reply = MockTransport.Reply.status(200, body: Data(#"{"b":1,"a":"x"}"#.utf8), headers: ["Content-Type": "application/json"])
        let lines = try await printed({ ConsoleObserver(format: .blocks, body: .prettyJSON, write: $0) }, reply: reply)
        XCTAssertEqual(lines.count, 1)
        let block = try XCTUnwrap(lines.first).split(separator: "\n").map(String.init)
        XCTAssertEqual(block[0], "[REQUEST] POST https://api.example.com/login?token=[REDACTED]")
        XCTAssertEqual(Array(block[1...2]), ["  Authorization: [REDACTED]", "  Content-Type: application/json"])
        XCTAssertEqual(block[3], "  body (35 B):")
        XCTAssertTrue(block.contains(#"      "password" : "[REDACTED]","#) || block.contains(#"      "password": "[REDACTED]","#), block.joined(separator: "\n"))
        XCTAssertTrue(block.contains { $0.hasPrefix("[RESPONSE] 200 https://api.example.com/login?token=[REDACTED] (") })
        XCTAssertFalse(block.joined().contains("hunter2"))
    }

    func testSizeOnlyAndTextBodies() async throws {
        let reply = MockTransport.Reply.status(200, body: Data("plain answer".utf8), headers: ["Content-Type": "text/plain"])
        let sizeOnly = try await printed({ ConsoleObserver(format: .blocks, body: .sizeOnly, write: $0) }, reply: reply)
        XCTAssertTrue(sizeOnly[0].contains("  body (12 B)"))
        XCTAssertFalse(sizeOnly[0].contains("plain answer"))
        let text = try await printed({ ConsoleObserver(format: .blocks, body: .text, write: $0) }, reply: reply)
        XCTAssertTrue(text[0].contains("  body (12 B):\n    plain answer"), text[0])
    }

    func testAtDebugEachStreamedMessageIsALineWithItsRedactedData() async throws {
        let lines = Locked<[String]>([])
        let dispatcher = HTTPEventDispatcher()
        dispatcher.subscribe(ConsoleObserver(minimumLevel: .debug, write: { line in lines.withLock { $0.append(line) } }))
        let transport = StreamingMockTransport(headers: ["Content-Type": "text/event-stream"])
        let client = HTTPTransportClient(transport: transport, dispatcher: dispatcher, policy: .debug)
        let url = URL(string: "https://api.example.com/chat")!
        let exchange = Task { try await client.send(HTTPRequest(url: url)) { _, body in try await body.collect(upTo: 1024) } }
        let writer = try await transport.nextWriter()
        try await writer.write(HTTPBody.ByteChunk("event: delta\ndata: {\"t\":\"Hi\",\"token\":\"s3cr3t\"}\n\n".utf8))
        writer.finish()
        _ = try await exchange.value
        await dispatcher.flush()
        let messages = lines.withLock { $0 }.filter { $0.contains("-> message") }
        XCTAssertEqual(messages, [#"GET https://api.example.com/chat -> message 0 delta: {"t":"Hi","token":"[REDACTED]"}"#])
    }

    func testFlushReturnsWhileAnotherTaskKeepsEmittingWithoutPause() async throws {
        // Each write lasts until the emitter handled one more event: the buffer is never empty
        // when the queue looks at it, as under a client that never pauses.
        let previous = HTTPDiagnostics.handler
        HTTPDiagnostics.handler = { _ in }  // the drops under this load are expected
        defer { HTTPDiagnostics.handler = previous }
        let gate = EmissionGate()
        let console = ConsoleObserver { _ in gate.waitForAnotherEmission() }
        for path in ["a", "b", "c"] { console.handle(failure(path)) }
        let event = failure("busy")
        let emitter = Task.detached {
            while !gate.isStopped {
                console.handle(event)
                gate.recordEmission()
            }
        }
        let flushed = AsyncCondition(false)
        Task {
            await console.flush()
            flushed.update { $0 = true }
        }
        // The timeout only bounds a hang: a flush that waited for an empty buffer never returns.
        let didFlush: Bool
        do {
            _ = try await flushed.wait(timeout: 60, until: { $0 }) { _ in TestFailure("flush did not return under load") }
            didFlush = true
        } catch {
            didFlush = false
        }
        let emittedBeforeTheFlushReturned = gate.emissions
        gate.stop()
        await emitter.value
        // Quiet before the next test: its drops are reported now, not into another test's handler.
        await console.shutdown()
        XCTAssertTrue(didFlush, "the flush returned within a minute while events kept coming")
        XCTAssertGreaterThan(emittedBeforeTheFlushReturned, 0, "the flush returned under load, not after it")
    }

    func testShutdownWritesTheBufferedLinesAndReportsTheDropsBeforeItReturns() async throws {
        let overflow = overflowReports(dropped: 3, bufferLimit: 2, bufferByteLimit: ConsoleObserver.defaultConfiguration.bufferByteLimit)
        var console: ConsoleObserver?
        let reports = try await consoleReports {
            let (stopping, written) = try await consoleThatDroppedThreeBehindABlockedWrite()
            await stopping.shutdown()
            XCTAssertEqual(written(), ["https://api.example.com/first", "https://api.example.com/d", "https://api.example.com/e"])
            // After shutdown nothing more is written: each event is dropped, counted and
            // reported (the first at once, the next by the flush).
            stopping.handle(failure("late"))
            stopping.handle(failure("later"))
            await stopping.flush()
            XCTAssertEqual(written().count, 3)
            console = stopping
        }
        XCTAssertEqual(reports, overflow + [
            DeliveryDiagnostic.droppedAfterShutdown(count: 1, total: 1).diagnostic(source: "ConsoleObserver", items: "event"),
            DeliveryDiagnostic.droppedAfterShutdown(count: 1, total: 2).diagnostic(source: "ConsoleObserver", items: "event"),
        ])
        let statistics = try XCTUnwrap(console).statistics
        XCTAssertEqual([statistics.accepted, statistics.delivered, statistics.dropped, statistics.droppedAfterShutdown], [8, 3, 5, 2])
    }

    /// Behind a blocked write, ten messages of a 100 KiB prompt's answer and the exchange's end
    /// fit 512 KiB: the later messages share the request the first one counted (charged it
    /// each, they weighed about 1 MiB and most were dropped).
    func testAStreamsMessagesShareTheCostOfTheirRequest() async throws {
        let (console, lines, release) = try await consoleBlockedWritingItsFirstLine(
            minimumLevel: .debug, configuration: configuration(bufferByteLimit: 512 * 1024)
        )
        let request = HTTPRequest(method: .post, url: URL(string: "https://api.example.com/v1/chat")!, body: Data(count: 100 * 1024))
        let response = HTTPResponse(requestID: request.id, statusCode: 200, headers: [:], body: Data(), url: request.url)
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        for index in 0..<10 {
            console.handle(.responseMessage("token \(index)", index: index, of: response, to: request, startedAt: start))
        }
        console.handle(.requestSucceeded(response, to: request, startedAt: start, endedAt: start + 1))
        release.signal()
        await console.flush()
        let written = lines.withLock { $0 }
        XCTAssertEqual(written.count, 12, "\(written)")
        XCTAssertEqual(written.last?.hasPrefix("POST https://api.example.com/v1/chat -> 200"), true, "\(written)")
    }

    func testTheByteLimitDropsTheOldestWaitingEvents() async throws {
        // Room for two waiting events by bytes, the default thousand by count.
        let eventBytes = failure("a").retainedByteCount
        let bufferByteLimit = 2 * eventBytes + eventBytes / 2
        let bufferLimit = ConsoleObserver.defaultConfiguration.bufferLimit
        let reports = try await consoleReports {
            let (console, written) = try await consoleThatDroppedThreeBehindABlockedWrite(bufferLimit: bufferLimit, bufferByteLimit: bufferByteLimit)
            await console.flush()
            XCTAssertEqual(written(), ["https://api.example.com/first", "https://api.example.com/d", "https://api.example.com/e"])
        }
        XCTAssertEqual(reports, overflowReports(dropped: 3, bufferLimit: bufferLimit, bufferByteLimit: bufferByteLimit))
    }
}

/// Counts a test emitter's events and lets a write wait for the next one, under one condition.
private final class EmissionGate: @unchecked Sendable {
    // `condition` guards `count` and `stopped`.
    private let condition = NSCondition()
    private var count = 0
    private var stopped = false

    var emissions: Int { condition.withLock { count } }
    var isStopped: Bool { condition.withLock { stopped } }

    func recordEmission() {
        condition.withLock {
            count += 1
            condition.broadcast()
        }
    }

    /// Returns once another event was emitted, or the gate stopped; a minute at most.
    func waitForAnotherEmission() {
        let deadline = Date() + 60
        condition.withLock {
            let start = count
            while count == start, !stopped, condition.wait(until: deadline) {}
        }
    }

    func stop() {
        condition.withLock {
            stopped = true
            condition.broadcast()
        }
    }
}
