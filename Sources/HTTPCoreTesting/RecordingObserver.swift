import Foundation
import HTTPCore
import HTTPCoreObservation
import HTTPCoreConcurrency

/// An ``/HTTPCoreObservation/HTTPObserver`` that keeps every event it receives, for assertions in tests.
///
/// ```swift
/// let recorder = RecordingObserver()
/// dispatcher.subscribe(recorder)
/// _ = try await client.send(request)
/// let events = try await recorder.waitForEvents(count: 4)
/// XCTAssertEqual(events.map(\.name), [.requestCreated, .requestStarted, .responseReceived, .requestSucceeded])
/// ```
public final class RecordingObserver: HTTPObserver {
    /// Thrown when a wait's deadline passes; says how many events had arrived.
    package struct WaitTimeout: Error, CustomStringConvertible {
        /// What was awaited and what arrived.
        package let description: String
    }

    private struct Received {
        var events: [HTTPEvent] = []
    }

    private let condition = AsyncCondition(Received())

    /// Creates an empty recorder.
    public init() {}

    /// Records an event.
    ///
    /// - Parameter event: The event the dispatcher delivers.
    public func handle(_ event: HTTPEvent) {
        condition.update { $0.events.append(event) }
    }

    /// Every event received so far, in arrival order.
    public var events: [HTTPEvent] { condition.read(\.events) }

    /// The events of one request.
    ///
    /// - Parameter requestID: The request's id.
    /// - Returns: Its events so far, in arrival order.
    package func events(for requestID: HTTPRequest.ID) -> [HTTPEvent] {
        events.filter { $0.requestID == requestID }
    }

    /// Waits for events, awaiting the condition rather than sleeping.
    ///
    /// - Parameters:
    ///   - count: How many events to wait for.
    ///   - timeout: The longest wait, in seconds; it only bounds a hang.
    /// - Returns: Every event recorded, once at least `count` arrived.
    /// - Throws: An error that says how many arrived, after `timeout`.
    @discardableResult
    public func waitForEvents(count: Int, timeout: TimeInterval = 60) async throws -> [HTTPEvent] {
        try await condition.wait(timeout: timeout, until: { $0.events.count >= count }) { received in
            WaitTimeout(description: "waited \(timeout) s for \(count) events, \(received.events.count) arrived")
        }.events
    }

    /// Waits for terminal events (succeeded, failed, cancelled), awaiting the condition rather
    /// than sleeping.
    ///
    /// - Parameters:
    ///   - count: How many terminal events to wait for.
    ///   - timeout: The longest wait, in seconds; it only bounds a hang.
    /// - Returns: Every event recorded, once at least `count` terminal events arrived.
    /// - Throws: An error that says how many arrived, after `timeout`.
    @discardableResult
    public func waitForTerminalEvents(count: Int, timeout: TimeInterval = 60) async throws -> [HTTPEvent] {
        try await condition.wait(timeout: timeout, until: { $0.events.filter(\.name.isTerminal).count >= count }) { received in
            WaitTimeout(
                description: "waited \(timeout) s for \(count) terminal events, \(received.events.filter(\.name.isTerminal).count) arrived"
            )
        }.events
    }
}
