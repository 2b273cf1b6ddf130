import Foundation
import HTTPCore

extension GatedObserver {
    /// Sends a GET to each of `urls`, one after the other, while `observer` is behind: its
    /// delivery from `dispatcher` is held in the first exchange's terminal event until every
    /// request was sent, then released, and `dispatcher` flushed.
    ///
    /// Every exchange is answered 200 by a ``MockTransport`` and emits 4 events, so with a
    /// buffer of `b` events and `n` URLs the observer receives the first exchange and the last
    /// `b` events, and is told of the `4 × (n − 1) − b` dropped between them as one gap, the
    /// same on every run. Returns the observer's subscription (the gate's, named
    /// `GatedObserver` in diagnostics).
    @discardableResult
    public static func sendBurst(
        _ urls: [URL], whileBehind observer: any HTTPObserver, on dispatcher: HTTPEventDispatcher
    ) async throws -> HTTPEventSubscription {
        let gate = GatedObserver(observer) { $0.name.isTerminal }
        let subscription = dispatcher.subscribe(gate)
        let client = HTTPTransportClient(transport: MockTransport(), dispatcher: dispatcher)
        for (index, url) in urls.enumerated() {
            _ = try await client.send(HTTPRequest(url: url))
            // Held in the first exchange's end: its other events were handed over, none waits.
            if index == 0 { try await gate.waitUntilHolding() }
        }
        gate.open()
        await dispatcher.flush()
        return subscription
    }
}
