import Foundation
import HTTPCoreTesting
import XCTest

@testable import HTTPCore
@testable import HTTPCoreObservation
import HTTPCoreConcurrency

final class HTTPEventDispatcherTests: XCTestCase {
    private func event(_ name: HTTPEvent.Name = .requestCreated) -> HTTPEvent {
        let request = HTTPRequest(url: URL(string: "https://example.com")!)
        return HTTPEvent(name: name, request: RequestRecord(request: request, policy: .debug, correlation: nil), attempt: 1)
    }

    func testEveryObserverReceivesEveryEventInOrder() {
        let dispatcher = HTTPEventDispatcher()
        let first = RecordingObserver()
        let second = RecordingObserver()
        dispatcher.subscribe(first)
        dispatcher.subscribe(second)
        let events = (0..<500).map { _ in event() }
        events.forEach(dispatcher.emit)
        // Handed over inline: no flush, no wait.
        XCTAssertEqual(first.events.map(\.requestID), events.map(\.requestID))
        XCTAssertEqual(second.events.map(\.requestID), events.map(\.requestID))
    }

    @TaskLocal static var incomingRequestID: String?

    func testObserversRunOnTheTaskThatSentTheRequestWithItsTaskLocals() async throws {
        let dispatcher = HTTPEventDispatcher()
        let seen = Locked<[String]>([])
        dispatcher.subscribe { event in
            seen.withLock { $0.append("\(event.name.rawValue) \(Self.incomingRequestID ?? "none")") }
        }
        let client = HTTPTransportClient(transport: MockTransport(default: .status(200)), dispatcher: dispatcher)
        try await Self.$incomingRequestID.withValue("incoming-7") {
            _ = try await client.send(HTTPRequest(url: URL(string: "https://example.com/a")!))
        }
        XCTAssertEqual(seen.withLock { $0 }, [
            "http.request.created incoming-7", "http.request.started incoming-7",
            "http.response.received incoming-7", "http.request.succeeded incoming-7",
        ], "every event handed over before send returned, with the caller's task-locals")
    }

    func testAnObserverIsHandedOnlyTheEventsItNames() {
        let dispatcher = HTTPEventDispatcher()
        let everything = RecordingObserver()
        dispatcher.subscribe(everything)
        let recorder = RecordingObserver()
        dispatcher.subscribe(TerminalOnly(recorder: recorder))
        let names: [HTTPEvent.Name] = [
            .requestCreated, .requestStarted, .responseReceived, .requestSucceeded,
            .requestCreated, .requestStarted, .requestRetried, .requestFailed,
            .requestCreated, .requestCancelled,
        ]
        names.map { event($0) }.forEach(dispatcher.emit)
        XCTAssertEqual(recorder.events.map(\.name), [.requestSucceeded, .requestFailed, .requestCancelled])
        XCTAssertEqual(everything.events.map(\.name), names, "an observer that names none is handed every event")
    }

    func testEachBuiltInNameReachesOnlyItsOwnObserverAndAnotherNameOnlyTheOneThatNamesIt() {
        let dispatcher = HTTPEventDispatcher()
        let builtIn: [HTTPEvent.Name] = [
            .requestCreated, .requestStarted, .requestRetried, .responseReceived, .responseMessage,
            .requestSucceeded, .requestFailed, .requestCancelled,
        ]
        let other = HTTPEvent.Name("test.other")
        let names = builtIn + [other, HTTPEvent.Name("test.unnamed")]
        let recorders = names.map { _ in RecordingObserver() }
        for (name, recorder) in zip(names, recorders) {
            dispatcher.subscribe(Named(names: [name], recorder: recorder))
        }
        let mixed = RecordingObserver()
        dispatcher.subscribe(Named(names: [.requestStarted, other], recorder: mixed))
        names.map { event($0) }.forEach(dispatcher.emit)
        XCTAssertEqual(recorders.map { $0.events.map(\.name) }, names.map { [$0] })
        XCTAssertEqual(mixed.events.map(\.name), [.requestStarted, other])
    }

    func testAnEventIsBuiltOnlyWhenASubscribedObserverHandlesItsNameAndOnceForAll() {
        let dispatcher = HTTPEventDispatcher()
        let names: [HTTPEvent.Name] = [.requestCreated, .requestStarted, .responseReceived, .requestRetried, .requestSucceeded]
        var built: [HTTPEvent.Name] = []
        for name in names {
            dispatcher.emit(name) { name in built.append(name); return event(name) }
        }
        XCTAssertEqual(built, [], "nobody subscribed: nothing built")

        let first = RecordingObserver()
        let second = RecordingObserver()
        dispatcher.subscribe(TerminalOnly(recorder: first))
        dispatcher.subscribe(TerminalOnly(recorder: second))
        for name in names {
            dispatcher.emit(name) { name in built.append(name); return event(name) }
        }
        XCTAssertEqual(built, [.requestSucceeded], "only the terminal event has observers, and it is built once for both")
        XCTAssertEqual(first.events.map(\.requestID), second.events.map(\.requestID))
        XCTAssertEqual(first.events.map(\.name), [.requestSucceeded])
    }

    func testCancelledSubscriptionReceivesNothingMore() {
        let dispatcher = HTTPEventDispatcher()
        let kept = RecordingObserver()
        let cancelled = RecordingObserver()
        dispatcher.subscribe(kept)
        let subscription = dispatcher.subscribe(cancelled)
        dispatcher.emit(event())
        subscription.cancel()
        subscription.cancel()
        dispatcher.emit(event())
        XCTAssertTrue(subscription.isCancelled)
        XCTAssertEqual(cancelled.events.count, 1)
        XCTAssertEqual(kept.events.count, 2)
        XCTAssertTrue(dispatcher.hasObservers)
    }

    func testASubscriptionKeptAfterItsDispatcherIsGoneKeepsNoOtherObserverAlive() {
        // Observers that are classes, so their lifetimes can be watched.
        final class Observer: HTTPObserver {
            func handle(_ event: HTTPEvent) {}
        }
        weak var otherObserver: Observer?
        weak var freedDispatcher: HTTPEventDispatcher?
        var kept: HTTPEventSubscription?
        do {
            let dispatcher = HTTPEventDispatcher()
            let other = Observer()
            kept = dispatcher.subscribe(Observer())
            dispatcher.subscribe(other)
            otherObserver = other
            freedDispatcher = dispatcher
        }
        XCTAssertNil(freedDispatcher)
        XCTAssertNil(otherObserver)
        kept?.cancel()
        XCTAssertEqual(kept?.isCancelled, true)
    }

    func testAnObserverMayCancelItsOwnSubscriptionWhileHandlingAnEvent() {
        let dispatcher = HTTPEventDispatcher()
        let subscription = Locked<HTTPEventSubscription?>(nil)
        let handled = Locked(0)
        let after = RecordingObserver()
        subscription.withLock {
            $0 = dispatcher.subscribe { _ in
                handled.withLock { $0 += 1 }
                subscription.withLock { $0 }?.cancel()
            }
        }
        dispatcher.subscribe(after)
        (0..<3).forEach { _ in dispatcher.emit(event()) }
        XCTAssertEqual(handled.withLock { $0 }, 1)
        XCTAssertEqual(after.events.count, 3, "the observers after it still see every event")
    }

    func testFlushAwaitsEveryObserversOwnFlush() async {
        let dispatcher = HTTPEventDispatcher()
        let first = FlushCounter()
        let second = FlushCounter()
        dispatcher.subscribe(first)
        dispatcher.subscribe(second)
        await dispatcher.flush()
        await dispatcher.flush()
        XCTAssertEqual([first.flushes.withLock { $0 }, second.flushes.withLock { $0 }], [2, 2])
    }

    func testItHasTerminalEventObserversOnlyWhenOneHandlesATerminalEvent() {
        let dispatcher = HTTPEventDispatcher()
        XCTAssertFalse(dispatcher.hasTerminalEventObservers)
        dispatcher.subscribe(CreatedOnly())
        XCTAssertTrue(dispatcher.hasObservers)
        XCTAssertFalse(dispatcher.hasTerminalEventObservers, "an observer of `created` alone handles none")
        let terminal = dispatcher.subscribe(TerminalOnly(recorder: RecordingObserver()))
        XCTAssertTrue(dispatcher.hasTerminalEventObservers)
        terminal.cancel()
        XCTAssertFalse(dispatcher.hasTerminalEventObservers)
        dispatcher.subscribe { _ in }
        XCTAssertTrue(dispatcher.hasTerminalEventObservers, "an observer of every event handles them")
    }

    func testFlushWithoutObserversReturns() async {
        let dispatcher = HTTPEventDispatcher()
        dispatcher.emit(event())
        await dispatcher.flush()
        XCTAssertFalse(dispatcher.hasObservers)
    }

    /// An observer of `created` events alone, which does nothing with them.
    private struct CreatedOnly: HTTPObserver {
        var handledEventNames: Set<HTTPEvent.Name>? { [.requestCreated] }
        func handle(_ event: HTTPEvent) {}
    }

    /// An observer handed terminal events only, into a recorder.
    private struct TerminalOnly: HTTPObserver {
        let recorder: RecordingObserver
        var handledEventNames: Set<HTTPEvent.Name>? { HTTPEvent.Name.terminal }
        func handle(_ event: HTTPEvent) { recorder.handle(event) }
    }

    /// An observer handed the events of `names` only, into a recorder.
    private struct Named: HTTPObserver {
        let names: Set<HTTPEvent.Name>
        let recorder: RecordingObserver
        var handledEventNames: Set<HTTPEvent.Name>? { names }
        func handle(_ event: HTTPEvent) { recorder.handle(event) }
    }

    /// An observer that counts its flushes.
    private struct FlushCounter: HTTPObserver {
        let flushes = Locked(0)
        func handle(_ event: HTTPEvent) {}
        func flush() async { flushes.withLock { $0 += 1 } }
    }
}
