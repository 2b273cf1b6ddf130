import Dispatch
import Foundation
import HTTPCore
import HTTPCoreObservation
import HTTPCoreConcurrency
import HTTPCoreDelivery
import HTTPCoreTesting
import XCTest

/// An observer that blocks, run off the request path by the delivery engine.
final class QueuedObserverTests: XCTestCase {
    private let url = URL(string: "https://api.example.com/items")!

    func testABlockedObserverDelaysNoRequestAndGetsEveryEventInOrderOnceUnblocked() async throws {
        let dispatcher = HTTPEventDispatcher()
        let blocking = BlockingObserver()
        let queued = QueuedObserver(blocking)
        dispatcher.subscribe(queued)
        let client = HTTPTransportClient(transport: MockTransport(default: .status(200)), dispatcher: dispatcher)
        var ids: [HTTPRequest.ID] = []
        for _ in 0..<20 {
            let request = HTTPRequest(url: url)
            ids.append(request.id)
            let response = try await client.send(request)
            XCTAssertEqual(response.statusCode, 200)
        }
        try await blocking.waitUntilBlocked()
        XCTAssertEqual(blocking.handled.count, 0, "every request finished while the observer was stuck in its first event")

        blocking.unblock()
        await dispatcher.flush()
        let expected = ids.flatMap { id in
            [HTTPEvent.Name.requestCreated, .requestStarted, .responseReceived, .requestSucceeded].map { "\(id) \($0.rawValue)" }
        }
        XCTAssertEqual(blocking.handled.map { "\($0.requestID) \($0.name.rawValue)" }, expected)
        XCTAssertEqual(queued.statistics.accepted, 80)
        XCTAssertEqual(queued.statistics.delivered, 80)
        XCTAssertTrue(queued.statistics.isBalanced)
    }

    func testEventsTheObserverLeavesOutAreCountedAsSkippedNotDelivered() async throws {
        let dispatcher = HTTPEventDispatcher()
        let recorder = RecordingObserver()
        let queued = QueuedObserver(recorder) { event in
            guard event.name.isTerminal else { return false }
            recorder.handle(event)
            return true
        }
        dispatcher.subscribe(queued)
        let client = HTTPTransportClient(transport: MockTransport(default: .status(200)), dispatcher: dispatcher)
        for _ in 0..<3 { _ = try await client.send(HTTPRequest(url: url)) }
        await dispatcher.flush()
        XCTAssertEqual(recorder.events.map(\.name), [.requestSucceeded, .requestSucceeded, .requestSucceeded])
        let statistics = queued.statistics
        XCTAssertEqual([statistics.accepted, statistics.delivered, statistics.skipped, statistics.pending], [12, 3, 9, 0], "\(statistics)")
        XCTAssertTrue(statistics.isBalanced)
    }

    func testAnObserverThatFallsBehindLosesTheOldestEventsCountedAndReportedOnce() async throws {
        let reports = Locked<[DeliveryDiagnostic]>([])
        var configuration = QueuedObserver<BlockingObserver>.defaultConfiguration
        configuration.bufferLimit = 4
        configuration.diagnostics = { report in reports.withLock { $0.append(report) } }
        let blocking = BlockingObserver()
        let queued = QueuedObserver(blocking, configuration: configuration)
        let events = (0..<11).map { _ in HTTPEvent.requestCreated(HTTPRequest(url: url)) }

        queued.handle(events[0])
        try await blocking.waitUntilBlocked()
        events[1...].forEach(queued.handle)
        XCTAssertEqual(queued.statistics.dropped, 6, "ten events into a buffer of four")
        blocking.unblock()
        await queued.flush()

        XCTAssertEqual(blocking.handled.map(\.requestID), [0, 7, 8, 9, 10].map { events[$0].requestID }, "the oldest waiting were dropped")
        XCTAssertEqual(reports.withLock { $0 }, [
            .overflowStarted(countLimit: 4, byteLimit: configuration.bufferByteLimit), .overflowEnded(dropped: 6),
        ], "one report when the overflow starts and one when it ends, never one per event")
        let statistics = queued.statistics
        XCTAssertEqual([statistics.accepted, statistics.delivered, statistics.dropped, statistics.pending], [11, 5, 6, 0])
    }

    func testByDefaultAnOverflowIsReportedToTheProcessWideHandlerNamingTheObserver() async throws {
        let reports = Locked<[HTTPDiagnostic]>([])
        let previous = HTTPDiagnostics.handler
        HTTPDiagnostics.handler = { report in reports.withLock { $0.append(report) } }
        defer { HTTPDiagnostics.handler = previous }
        var configuration = QueuedObserver<BlockingObserver>.defaultConfiguration
        configuration.bufferLimit = 2
        let blocking = BlockingObserver()
        let queued = QueuedObserver(blocking, configuration: configuration)
        queued.handle(HTTPEvent.requestCreated(HTTPRequest(url: url)))
        try await blocking.waitUntilBlocked()
        for _ in 0..<5 { queued.handle(HTTPEvent.requestCreated(HTTPRequest(url: url))) }
        blocking.unblock()
        await queued.flush()

        let own = reports.withLock { $0 }.filter { $0.source == "QueuedObserver<BlockingObserver>" }
        XCTAssertEqual(own.map(\.level), [.warning, .error])
        XCTAssertEqual(own.last?.metadata["lost"], "3")
        XCTAssertEqual(own.map(\.description), [
            "QueuedObserver<BlockingObserver>: " + DeliveryDiagnostic.overflowStarted(countLimit: 2, byteLimit: configuration.bufferByteLimit).description(items: "event"),
            "QueuedObserver<BlockingObserver>: " + DeliveryDiagnostic.overflowEnded(dropped: 3).description(items: "event"),
        ])
    }

    func testAfterShutdownEventsAreCountedAsDroppedAndTheObserverSeesNoMore() async {
        let blocking = BlockingObserver()
        blocking.unblock()
        let queued = QueuedObserver(blocking)
        queued.handle(HTTPEvent.requestCreated(HTTPRequest(url: url)))
        await queued.shutdown()
        queued.handle(HTTPEvent.requestCreated(HTTPRequest(url: url)))
        await queued.flush()
        XCTAssertEqual(blocking.handled.count, 1)
        XCTAssertEqual(queued.statistics.droppedAfterShutdown, 1)
        XCTAssertTrue(queued.statistics.isBalanced)
    }

    func testTheWrappedObserversNamesAreTheOnesHandled() {
        let queued = QueuedObserver(TerminalNames())
        XCTAssertEqual(queued.handledEventNames, HTTPEvent.Name.terminal)
    }
}

/// An observer that blocks its thread in `handle(_:)` until unblocked, as a database writer
/// waiting for its disk would.
private final class BlockingObserver: HTTPObserver {
    private let gate = DispatchSemaphore(value: 0)
    private let state = AsyncCondition(State())

    private struct State {
        var isBlocked = false
        var isOpen = false
        var handled: [HTTPEvent] = []
    }

    var handled: [HTTPEvent] { state.read(\.handled) }

    func handle(_ event: HTTPEvent) {
        let mustWait = state.update { state -> Bool in
            guard !state.isOpen else { return false }
            state.isBlocked = true
            return true
        }
        if mustWait { gate.wait() }
        state.update { $0.handled.append(event) }
    }

    func waitUntilBlocked() async throws {
        _ = try await state.wait(timeout: 60, until: \.isBlocked)
    }

    func unblock() {
        let wasBlocked = state.update { state -> Bool in
            state.isOpen = true
            return state.isBlocked
        }
        if wasBlocked { gate.signal() }
    }
}

/// An observer of terminal events that does nothing with them.
private struct TerminalNames: HTTPObserver {
    var handledEventNames: Set<HTTPEvent.Name>? { HTTPEvent.Name.terminal }
    func handle(_ event: HTTPEvent) {}
}
