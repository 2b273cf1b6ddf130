import Foundation
import HTTPCoreTesting
import XCTest

@testable import HTTPCore

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

    func testSlowObserverDelaysNeitherEmitNorOtherObservers() async throws {
        let dispatcher = HTTPEventDispatcher()
        let gate = Gate()
        dispatcher.subscribe(ClosureObserver { _ in gate.pass() })
        let fast = RecordingObserver()
        dispatcher.subscribe(fast)
        for _ in 0..<100 { dispatcher.emit(event()) }
        try await fast.waitForEvents(count: 100)
        try await gate.waitUntilBlocked()
        XCTAssertEqual(gate.passedCount, 0, "the slow observer is still blocked in its first event")
        gate.open()
        await dispatcher.flush()
        XCTAssertEqual(gate.passedCount, 100)
    }

    func testFullBufferDropsOldestPendingEventsAndCountsThem() async throws {
        let dispatcher = HTTPEventDispatcher(bufferLimit: 4)
        let gate = Gate()
        let received = Locked<[HTTPRequest.ID]>([])
        let subscription = dispatcher.subscribe(ClosureObserver { event in
            gate.pass()
            received.withLock { $0.append(event.requestID) }
        })
        let events = (0..<10).map { _ in event() }
        dispatcher.emit(events[0])
        try await gate.waitUntilBlocked()
        events[1...].forEach(dispatcher.emit)
        XCTAssertEqual(subscription.droppedEventCount, 5)
        gate.open()
        await dispatcher.flush()
        XCTAssertEqual(received.withLock { $0 }, [events[0], events[6], events[7], events[8], events[9]].map(\.requestID))
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

/// Blocks every observer call until opened, and reports when the first call is blocked.
final class Gate: Sendable {
    struct NeverBlocked: Error {}

    private let semaphore = DispatchSemaphore(value: 0)
    private let blocked = AsyncCondition(false)
    private let passed = Locked(0)
    private let isOpen = Locked(false)

    var passedCount: Int { passed.withLock { $0 } }

    func pass() {
        if !isOpen.withLock({ $0 }) {
            blocked.update { $0 = true }
            semaphore.wait()
            semaphore.signal()
        }
        passed.withLock { $0 += 1 }
    }

    func open() {
        isOpen.withLock { $0 = true }
        semaphore.signal()
    }

    func waitUntilBlocked() async throws {
        _ = try await blocked.wait(timeout: 60, until: { $0 }) { _ in NeverBlocked() }
    }
}
