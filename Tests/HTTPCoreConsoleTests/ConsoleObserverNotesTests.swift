import Foundation
import HTTPCore
import HTTPCoreObservation
import HTTPCoreConcurrency
import HTTPCoreConsole
import HTTPCoreGenAI
import HTTPCoreTestPeers
import HTTPCoreTesting
import XCTest

/// The console renders any interpreter's note by its name, and rates an exchange by whether a
/// note reports a failure; `handle(_:)` makes no note, so nothing is derived on the request's task.
final class ConsoleObserverNotesTests: XCTestCase {
    /// What a console made by `observer` printed for a GET of the catalog answered 200 with
    /// `X-Cache: <cache>` and `Age: 42`, through a client whose policy has the cache interpreter.
    private func printed(cache: String, _ observer: (@escaping @Sendable (String) -> Void) -> ConsoleObserver) async throws -> [String] {
        let lines = Locked<[String]>([])
        let dispatcher = HTTPEventDispatcher()
        dispatcher.subscribe(observer { line in lines.withLock { $0.append(line) } })
        try await CacheInterpreter.sendCatalogGET(cache: cache, through: dispatcher)
        return lines.withLock { $0 }.map(GenAIFixture.timesHidden)
    }

    func testACustomInterpretersNoteEndsTheLineUnderItsName() async throws {
        let lines = try await printed(cache: "HIT") { ConsoleObserver(write: $0) }
        XCTAssertEqual(lines, ["GET https://api.example.com/catalog -> 200 (<t>, 0 B up, 5 B down) [cache: HIT, age 42]"])
    }

    func testACustomInterpretersNoteEndsTheBlocksUnderItsName() async throws {
        let blocks = try await printed(cache: "HIT") { ConsoleObserver(format: .blocks, body: .text, write: $0) }
        XCTAssertEqual(blocks, [
            """
            [REQUEST] GET https://api.example.com/catalog
            [RESPONSE] 200 https://api.example.com/catalog (<t>)
              X-Cache: HIT
              Age: 42
              body (5 B):
                fresh
            [cache] HIT, age 42
            """,
        ])
    }

    func testANoteThatReportsAFailureMakesA200AWarningThatAWarningConsolePrints() async throws {
        let warnings = { (write: @escaping @Sendable (String) -> Void) in ConsoleObserver(minimumLevel: .warning, write: write) }
        let failed = try await printed(cache: "ERROR", warnings)
        XCTAssertEqual(failed, ["GET https://api.example.com/catalog -> 200 (<t>, 0 B up, 5 B down) [cache: ERROR, age 42]"])
        let hit = try await printed(cache: "HIT", warnings)
        XCTAssertEqual(hit, [], "a note that reports no failure leaves a 200 at info")
        let errors = try await printed(cache: "ERROR") { ConsoleObserver(minimumLevel: .error, write: $0) }
        XCTAssertEqual(errors, [], "a note's failure is a warning, not an error")
    }

    func testAWarningConsoleCountsASuccessItsWriterLeftOutAsSkippedNotDelivered() async throws {
        let lines = Locked<[String]>([])
        let console = ConsoleObserver(minimumLevel: .warning) { line in lines.withLock { $0.append(line) } }
        let dispatcher = HTTPEventDispatcher()
        dispatcher.subscribe(console)
        for cache in ["HIT", "ERROR", nil] { try await CacheInterpreter.sendCatalogGET(cache: cache, through: dispatcher) }
        XCTAssertEqual(lines.withLock { $0 }.map(GenAIFixture.timesHidden), [
            "GET https://api.example.com/catalog -> 200 (<t>, 0 B up, 5 B down) [cache: ERROR, age 42]",
        ])
        // The HIT was kept by handle(_:) and left out by the writer; the 200 without a note was
        // left out by handle(_:), so never accepted.
        let statistics = console.statistics
        XCTAssertEqual([statistics.accepted, statistics.delivered, statistics.skipped, statistics.dropped], [2, 1, 1, 0], "\(statistics)")
        XCTAssertTrue(statistics.isBalanced)
    }

    // MARK: handle(_:) derives nothing

    /// The terminal event of `fixture`'s call through a client with the debug policy and the
    /// GenAI interpreter, as a dispatcher delivered it, nothing read from it.
    private func terminalEvent(of fixture: GenAIFixture) async throws -> HTTPEvent {
        let dispatcher = HTTPEventDispatcher()
        let kept = Locked<[HTTPEvent]>([])
        dispatcher.subscribe { event in kept.withLock { $0.append(event) } }
        try await fixture.send(through: dispatcher, policy: .debug)
        await dispatcher.flush()
        let terminal = try XCTUnwrap(kept.withLock { $0 }.last)
        XCTAssertEqual(terminal.name, .requestSucceeded)
        XCTAssertEqual(terminal.genAIRecord?.isDerived, false, "nothing read the call's facts yet")
        return terminal
    }

    /// Anthropic's stream cut by the provider's `overloaded_error` event, under a 200.
    private static let anthropicStreamEndedByAnError: GenAIFixture = {
        var fixture = GenAIFixture.anthropicStream
        fixture.responseBody = fixture.events.prefix(4).joined()
            + "event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}\n\n"
        return fixture
    }()

    /// What a console at `minimumLevel` printed when it handled a failure, whose write blocks
    /// until released, then `event`; and whether the event's GenAI facts were derived when
    /// `handle(event)` returned, its write still blocked, so that no worker could have read them.
    private func handled(_ event: HTTPEvent, minimumLevel: ConsoleObserver.Level) async throws -> (derivedByHandle: Bool?, lines: [String]) {
        let writing = DispatchSemaphore(value: 0)
        let released = DispatchSemaphore(value: 0)
        let lines = Locked<[String]>([])
        let console = ConsoleObserver(minimumLevel: minimumLevel) { line in
            if lines.withLock({ $0.isEmpty }) {
                writing.signal()
                _ = released.wait(timeout: .now() + 60)
            }
            lines.withLock { $0.append(line) }
        }
        let request = HTTPRequest(url: URL(string: "https://api.example.com/first")!)
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        console.handle(.requestFailed(.timeout, request: request, startedAt: start, endedAt: start + 1))
        let writingFirst = await Task.detached { writing.wait(timeout: .now() + 60) }.value
        XCTAssertEqual(writingFirst, .success)

        console.handle(event)
        let derivedByHandle = event.genAIRecord?.isDerived
        released.signal()
        await console.flush()
        return (derivedByHandle, Array(lines.withLock { $0 }.dropFirst()).map(GenAIFixture.timesHidden))
    }

    private static let anthropicLine = "POST https://api.anthropic.com/v1/messages -> 200"
        + " (<t>, 277 B up, \(GenAIFixture.anthropicStream.responseBody.utf8.count) B down)"

    func testHandleDerivesNoGenAIFactsAndTheWriterPrintsTheLineWithThem() async throws {
        let event = try await terminalEvent(of: .anthropicStream)
        let (derivedByHandle, lines) = try await handled(event, minimumLevel: .info)
        XCTAssertEqual(derivedByHandle, false, "handle made no note")
        XCTAssertEqual(lines, [Self.anthropicLine + " [genAI: claude-sonnet-4-20250514 · 3,097 in, 15 out tokens · first chunk <t> · stop]"])
        XCTAssertEqual(event.genAIRecord?.isDerived, true, "the writer made the note, on the console's queue")
    }

    func testAWarningConsoleRatesASuccessWithAttachmentsOnItsQueueAndPrintsItOnlyWhenANoteReportsAFailure() async throws {
        let succeeded = try await terminalEvent(of: .anthropicStream)
        let (succeededDerivedByHandle, succeededLines) = try await handled(succeeded, minimumLevel: .warning)
        XCTAssertEqual(succeededDerivedByHandle, false, "handle kept the 200 without making its note")
        XCTAssertEqual(succeededLines, [], "the writer rated it info and dropped it")
        XCTAssertEqual(succeeded.genAIRecord?.isDerived, true)
        XCTAssertEqual(ConsoleObserver.level(of: succeeded), .info)

        let fixture = Self.anthropicStreamEndedByAnError
        let failed = try await terminalEvent(of: fixture)
        let (failedDerivedByHandle, failedLines) = try await handled(failed, minimumLevel: .warning)
        XCTAssertEqual(failedDerivedByHandle, false)
        XCTAssertEqual(failedLines, [
            "POST https://api.anthropic.com/v1/messages -> 200 (<t>, 277 B up, \(fixture.responseBody.utf8.count) B down)"
                + " [genAI: claude-sonnet-4-20250514 · 3,097 in, 1 out tokens · first chunk <t> · error overloaded_error]",
        ])
        XCTAssertEqual(ConsoleObserver.level(of: failed), .warning)
    }

    func testAnErrorConsoleDropsASuccessInHandleWithoutEverMakingItsNote() async throws {
        let event = try await terminalEvent(of: .anthropicStream)
        let (derivedByHandle, lines) = try await handled(event, minimumLevel: .error)
        XCTAssertEqual(derivedByHandle, false)
        XCTAssertEqual(lines, [])
        XCTAssertEqual(event.genAIRecord?.isDerived, false, "a 200 is below error whatever its notes: nothing made them")
    }
}
