/// Receives the lifecycle events of HTTP exchanges.
///
/// Implement one method; new information arrives as new fields of ``HTTPEvent``, never as new
/// callbacks, so observers keep compiling as the event grows.
///
/// ```swift
/// struct StatusCounter: HTTPObserver {
///     let counts = Counter()
///     func handle(_ event: HTTPEvent) {
///         if event.name == .requestSucceeded { counts.record(event.response?.status.kind) }
///     }
/// }
/// dispatcher.subscribe(StatusCounter())
/// ```
///
/// Delivery: ``HTTPEventDispatcher`` calls `handle(_:)` off the request path, on a dispatch
/// queue of its own, one event at a time per observer and in emission order for each
/// request. A slow observer delays only its own deliveries; it may block, but the events
/// waiting for it are bounded (see ``HTTPEventDispatcher``).
public protocol HTTPObserver: Sendable {
    /// Handles one event. Called serially for this observer, never on the request path.
    func handle(_ event: HTTPEvent)
}

/// An ``HTTPObserver`` that forwards every event to a closure.
public struct ClosureObserver: HTTPObserver {
    private let body: @Sendable (HTTPEvent) -> Void

    /// Creates an observer that calls `body` for each event.
    public init(_ body: @escaping @Sendable (HTTPEvent) -> Void) {
        self.body = body
    }

    /// Calls the closure.
    public func handle(_ event: HTTPEvent) {
        body(event)
    }
}
