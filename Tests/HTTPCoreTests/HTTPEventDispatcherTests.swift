import Foundation
import HTTPCoreTesting
import XCTest

@testable import HTTPCore
import HTTPCoreConcurrency

final class HTTPEventDispatcherTests: XCTestCase {
    private func event(_ name: HTTPEvent.Name = .requestCreated) -> HTTPEvent {
        let request = HTTPRequest(url: URL(string: "https://example.com")!)
        return HTTPEvent(name: name, request: RequestRecord(request: request, policy: .debug, correlation: nil), attempt: 1)
    }

    func testEveryObserverReceivesEveryEventInOrder() async {
        let dispatcher = HTTPEventDispatcher()
        let first = RecordingObserver()
        let second = RecordingObserver()
        dispatcher.subscribe(first)
        dispatcher.subscribe(second)
        let events = (0..<500).map { _ in event() }
        events.forEach(dispatcher.emit)
        await dispatcher.flush()
        XCTAssertEqual(first.events.map(\.requestID), events.map(\.requestID))
        XCTAssertEqual(second.events.map(\.requestID), events.map(\.requestID))
    }

    func testUnderLoadAnObserverWakesAtMostOncePerDeliveryInterval() async throws {
        let dispatcher = HTTPEventDispatcher()
        let recorder = RecordingObserver()
        let subscription = dispatcher.subscribe(recorder)
        let started = DispatchTime.now().uptimeNanoseconds
        // Ten bursts of exchanges ending, each after the previous burst was delivered: without
        // spacing, every burst would wake the observer at least once, most several times.
        for burst in 1...10 {
            for _ in 0..<200 {
                dispatcher.emit(event(.requestSucceeded))
            }
            try await recorder.waitForEvents(count: burst * 200)
        }
        let elapsed = DispatchTime.now().uptimeNanoseconds - started
        await dispatcher.flush()   // the counters of the last run; nothing is left to start one
        XCTAssertEqual(subscription.statistics.delivered, 2_000)
        // Runs begin at least 5 ms apart: one at once, then at most one per 5 ms.
        let runs = subscription.deliveryRunCount
        XCTAssertLessThanOrEqual(runs, Int(elapsed / 5_000_000) + 1, "\(elapsed) ns")
        XCTAssertGreaterThanOrEqual(runs, 1)
    }

    func testSlowObserverDelaysNeitherEmitNorOtherObservers() async throws {
        let dispatcher = HTTPEventDispatcher()
        let gate = GatedObserver()
        dispatcher.subscribe(gate)
        let fast = RecordingObserver()
        dispatcher.subscribe(fast)
        for _ in 0..<100 { dispatcher.emit(event()) }
        try await fast.waitForEvents(count: 100)
        try await gate.waitUntilHolding()
        XCTAssertEqual(gate.passedCount, 0, "the slow observer is still blocked in its first event")
        gate.open()
        await dispatcher.flush()
        XCTAssertEqual(gate.passedCount, 100)
    }

    /// An observer handed terminal events only, into a recorder.
    private struct TerminalOnly: HTTPObserver {
        let recorder: RecordingObserver
        var handledEventNames: Set<HTTPEvent.Name>? { HTTPEvent.Name.terminal }
        func handle(_ event: HTTPEvent) { recorder.handle(event) }
        func handleMissedEvents(_ missed: HTTPMissedEvents) { recorder.handleMissedEvents(missed) }
    }

    func testAnObserverIsHandedOnlyTheEventsItNamesAndCountsOnlyThose() async throws {
        let dispatcher = HTTPEventDispatcher(bufferLimit: 1)
        let everything = dispatcher.subscribe(ClosureObserver { _ in })
        let recorder = RecordingObserver()
        let gate = GatedObserver(TerminalOnly(recorder: recorder))
        let subscription = dispatcher.subscribe(gate)
        let names: [HTTPEvent.Name] = [
            .requestCreated, .requestStarted, .responseReceived, .requestSucceeded,   // held by the gate
            .requestCreated, .requestStarted, .requestRetried, .requestFailed,        // failed: dropped for cancelled
            .requestCreated, .requestCancelled,
        ]
        let events = names.map { event($0) }
        events[...3].forEach(dispatcher.emit)
        try await gate.waitUntilHolding()
        events[4...].forEach(dispatcher.emit)
        gate.open()
        await dispatcher.flush()

        XCTAssertEqual(recorder.events.map(\.name), [.requestSucceeded, .requestCancelled])
        XCTAssertEqual(recorder.gaps, [
            RecordingObserver.Gap(position: 1, missed: HTTPMissedEvents(count: 1, terminalCount: 1, retriedCount: 0, messageCount: 0)),
        ], "the one event dropped is the failed one: the others were never queued for it")
        var settled = HTTPObserverStatistics()
        (settled.emitted, settled.delivered, settled.dropped) = (3, 2, 1)
        XCTAssertEqual(subscription.statistics, settled)
        XCTAssertEqual(everything.statistics.emitted, 10, "an observer that names none is handed every event")
    }

    func testAnEventIsBuiltOnlyWhenASubscribedObserverHandlesItsName() async {
        let dispatcher = HTTPEventDispatcher()
        let names: [HTTPEvent.Name] = [.requestCreated, .requestStarted, .responseReceived, .requestRetried, .requestSucceeded]
        var built: [HTTPEvent.Name] = []
        for name in names {
            dispatcher.emit(name) { name in built.append(name); return event(name) }
        }
        XCTAssertEqual(built, [], "nobody subscribed: nothing built")

        let recorder = RecordingObserver()
        dispatcher.subscribe(TerminalOnly(recorder: recorder))
        for name in names {
            dispatcher.emit(name) { name in built.append(name); return event(name) }
        }
        await dispatcher.flush()

        XCTAssertEqual(built, [.requestSucceeded], "only the terminal event has an observer")
        XCTAssertEqual(recorder.events.map(\.name), [.requestSucceeded])
    }

    func testFullBufferDropsOldestPendingEventsAndCountsThem() async throws {
        let dispatcher = HTTPEventDispatcher(bufferLimit: 4)
        let recorder = RecordingObserver()
        let gate = GatedObserver(recorder)
        let subscription = dispatcher.subscribe(gate)
        let events = (0..<10).map { _ in event() }
        dispatcher.emit(events[0])
        try await gate.waitUntilHolding()
        events[1...].forEach(dispatcher.emit)
        XCTAssertEqual(subscription.droppedEventCount, 5)
        gate.open()
        await dispatcher.flush()
        XCTAssertEqual(recorder.events.map(\.requestID), [events[0], events[6], events[7], events[8], events[9]].map(\.requestID))
    }

    func testDroppedEventsAreToldToTheObserverJustBeforeTheFirstEventAfterThem() async throws {
        let dispatcher = HTTPEventDispatcher(bufferLimit: 4)
        let recorder = RecordingObserver()
        let gate = GatedObserver(recorder)
        let subscription = dispatcher.subscribe(gate)
        let names: [HTTPEvent.Name] = [
            .requestCreated,
            .requestStarted, .requestRetried, .responseMessage, .requestSucceeded, .requestFailed,   // dropped
            .requestCreated, .requestStarted, .responseReceived, .requestCancelled,
        ]
        let events = names.map { event($0) }
        dispatcher.emit(events[0])
        try await gate.waitUntilHolding()
        events[1...].forEach(dispatcher.emit)

        var waiting = HTTPObserverStatistics()
        (waiting.emitted, waiting.dropped, waiting.pending) = (10, 5, 5)
        XCTAssertEqual(subscription.statistics, waiting, "one event held in delivery, four in the buffer")
        XCTAssertEqual(recorder.gaps, [], "told with the next event, not when dropped")
        gate.open()
        await dispatcher.flush()

        XCTAssertEqual(recorder.events.map(\.requestID), [events[0], events[6], events[7], events[8], events[9]].map(\.requestID))
        XCTAssertEqual(recorder.gaps, [
            RecordingObserver.Gap(position: 1, missed: HTTPMissedEvents(count: 5, terminalCount: 2, retriedCount: 1, messageCount: 1)),
        ])
        var settled = HTTPObserverStatistics()
        (settled.emitted, settled.delivered, settled.dropped) = (10, 5, 5)
        XCTAssertEqual(subscription.statistics, settled)
        XCTAssertEqual(subscription.statistics.description, "emitted 10, delivered 5, dropped 5, discarded 0, pending 0")
    }

    func testAnOverflowIsReportedOnceWhenItStartsAndOnceWhenItEndsWithWhatWasDropped() async throws {
        let reports = AsyncCondition<[HTTPObserverDiagnostic]>([])
        let dispatcher = HTTPEventDispatcher(bufferLimit: 4) { report in reports.update { $0.append(report) } }
        let gate = GatedObserver()
        dispatcher.subscribe(gate)
        dispatcher.emit(event())
        try await gate.waitUntilHolding()
        for _ in 0..<20 { dispatcher.emit(event(.requestSucceeded)) }
        let started = HTTPObserverDiagnostic.overflowStarted(observer: "GatedObserver", bufferLimit: 4)
        let whileHeld = try await reports.wait(timeout: 60, until: { !$0.isEmpty })
        XCTAssertEqual(whileHeld.first, started, "reported while the observer is still behind")

        gate.open()
        await dispatcher.flush()
        for _ in 0..<4 { dispatcher.emit(event()) }
        await dispatcher.flush()

        let missed = HTTPMissedEvents(count: 16, terminalCount: 16)
        XCTAssertEqual(reports.state, [started, .overflowEnded(observer: "GatedObserver", missed: missed)], "16 drops, two reports")
        XCTAssertEqual(
            reports.state.map(\.description),
            [
                "GatedObserver is behind: its buffer of 4 events is full, dropping the oldest until it catches up",
                "GatedObserver caught up: it never saw 16 events (16 exchange ends, 0 retried attempts)",
            ]
        )
    }

    func testCancellingDuringAnOverflowEndsItAndDiscardsWhatWasWaiting() async throws {
        let reports = AsyncCondition<[HTTPObserverDiagnostic]>([])
        let dispatcher = HTTPEventDispatcher(bufferLimit: 4) { report in reports.update { $0.append(report) } }
        let recorder = RecordingObserver()
        let gate = GatedObserver(recorder)
        let subscription = dispatcher.subscribe(gate)
        dispatcher.emit(event())
        try await gate.waitUntilHolding()
        for _ in 0..<9 { dispatcher.emit(event()) }

        subscription.cancel()
        dispatcher.emit(event())

        var cancelled = HTTPObserverStatistics()
        (cancelled.emitted, cancelled.dropped, cancelled.discarded, cancelled.pending) = (10, 5, 4, 1)
        XCTAssertEqual(subscription.statistics, cancelled, "the held event is still in delivery")
        let reported = try await reports.wait(timeout: 60, until: { $0.count >= 2 })
        XCTAssertEqual(reported, [
            .overflowStarted(observer: "GatedObserver", bufferLimit: 4),
            .overflowEnded(observer: "GatedObserver", missed: HTTPMissedEvents(count: 5)),
        ])
        XCTAssertEqual(recorder.gaps, [], "a cancelled observer is told nothing more")
        gate.open()
    }

    func testInATightLoopEveryEventIsDeliveredOrToldAsMissedExactlyOnce() async throws {
        let reports = Locked<[HTTPObserverDiagnostic]>([])
        let dispatcher = HTTPEventDispatcher(bufferLimit: 100) { report in reports.withLock { $0.append(report) } }
        let recorder = RecordingObserver()
        let subscription = dispatcher.subscribe(recorder)
        let names: [HTTPEvent.Name] = [.requestCreated, .requestStarted, .responseReceived, .requestSucceeded]
        for index in 0..<10_000 { dispatcher.emit(event(names[index % 4])) }
        await dispatcher.flush()

        let gaps = recorder.gaps.map(\.missed)
        let missed = gaps.reduce(0) { $0 + $1.count }
        XCTAssertEqual(recorder.events.count + missed, 10_000)
        XCTAssertEqual(recorder.events.filter(\.name.isTerminal).count + gaps.reduce(0) { $0 + $1.terminalCount }, 2_500)
        let statistics = subscription.statistics
        XCTAssertEqual([statistics.emitted, statistics.delivered, statistics.dropped, statistics.pending], [10_000, recorder.events.count, missed, 0])
        XCTAssertTrue(statistics.isBalanced)
        let observer = "RecordingObserver"
        XCTAssertEqual(
            reports.withLock { $0 },
            gaps.flatMap { [.overflowStarted(observer: observer, bufferLimit: 100), .overflowEnded(observer: observer, missed: $0)] },
            "one start and one end per gap, in order"
        )
    }

    func testCancelledSubscriptionReceivesNothingMore() async {
        let dispatcher = HTTPEventDispatcher()
        let kept = RecordingObserver()
        let cancelled = RecordingObserver()
        dispatcher.subscribe(kept)
        let subscription = dispatcher.subscribe(cancelled)
        dispatcher.emit(event())
        await dispatcher.flush()
        subscription.cancel()
        subscription.cancel()
        dispatcher.emit(event())
        await dispatcher.flush()
        XCTAssertTrue(subscription.isCancelled)
        XCTAssertEqual(cancelled.events.count, 1)
        XCTAssertEqual(kept.events.count, 2)
        XCTAssertTrue(dispatcher.hasObservers)
    }

    func testFlushWithoutObserversReturns() async {
        let dispatcher = HTTPEventDispatcher()
        dispatcher.emit(event())
        await dispatcher.flush()
        XCTAssertFalse(dispatcher.hasObservers)
    }
}
