import Dispatch
import Foundation
import HTTPCore
import HTTPCoreConcurrency

/// An ``/HTTPCore/HTTPObserver`` that holds its delivery at one event until opened, then passes every
/// event on to another observer: a slow observer on demand, for testing what a dispatcher
/// does while an observer is behind.
///
/// ```swift
/// let recorder = RecordingObserver()
/// let gate = GatedObserver(recorder) { $0.name.isTerminal }   // held in the first exchange's end
/// dispatcher.subscribe(gate)
/// _ = try await client.send(first)
/// try await gate.waitUntilHolding()   // the first exchange is all taken from the buffer
/// // ... events emitted now overflow the dispatcher's buffer, the same on every run ...
/// gate.open()
/// await dispatcher.flush()
/// ```
///
/// ``sendBurst(_:whileBehind:on:)`` does all of this for a list of URLs. Events before the
/// held one pass at once; the held event and all after it reach the wrapped observer once
/// ``open()`` is called. Gaps (``handleMissedEvents(_:)``) are passed on as they come.
public final class GatedObserver: HTTPObserver {
    /// Thrown when a wait's deadline passes.
    public struct WaitTimeout: Error, CustomStringConvertible {
        /// What was awaited.
        public let description: String
    }

    private struct State {
        var isOpen = false
        var isHolding = false
        var passedCount = 0
    }

    private let wrapped: any HTTPObserver
    private let holdsAt: @Sendable (HTTPEvent) -> Bool
    private let semaphore = DispatchSemaphore(value: 0)
    private let state = AsyncCondition(State())

    /// Creates a gate in front of `wrapped` that holds the first event for which `holdsAt`
    /// is true (by default the first event).
    public init(
        _ wrapped: any HTTPObserver = ClosureObserver { _ in },
        holdingAt holdsAt: @escaping @Sendable (HTTPEvent) -> Bool = { _ in true }
    ) {
        self.wrapped = wrapped
        self.holdsAt = holdsAt
    }

    /// The wrapped observer's: the gate holds only events it would be handed.
    public var handledEventNames: Set<HTTPEvent.Name>? { wrapped.handledEventNames }

    /// How many events were passed on to the wrapped observer.
    public var passedCount: Int { state.read { $0.passedCount } }

    /// Blocks the dispatcher's delivery thread in the held event until ``open()``, then passes
    /// the event on.
    public func handle(_ event: HTTPEvent) {
        if !state.read(\.isOpen), holdsAt(event) {
            let mustWait = state.update { state -> Bool in
                guard !state.isOpen else { return false }
                state.isHolding = true
                return true
            }
            if mustWait { semaphore.wait() }
        }
        wrapped.handle(event)
        state.update { $0.passedCount += 1 }
    }

    /// Passes the gap on to the wrapped observer.
    public func handleMissedEvents(_ missed: HTTPMissedEvents) {
        wrapped.handleMissedEvents(missed)
    }

    /// Releases the held event, if any, and every later one.
    public func open() {
        let wasHolding = state.update { state -> Bool in
            state.isOpen = true
            return state.isHolding
        }
        if wasHolding { semaphore.signal() }
    }

    /// Returns once the delivery thread is held in an event; throws ``WaitTimeout`` after
    /// `timeout` seconds.
    public func waitUntilHolding(timeout: TimeInterval = 60) async throws {
        _ = try await state.wait(timeout: timeout, until: { $0.isHolding }) { _ in
            WaitTimeout(description: "waited \(timeout) s for the gate to hold an event")
        }
    }
}
