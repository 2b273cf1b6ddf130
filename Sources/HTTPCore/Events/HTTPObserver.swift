/// Receives the lifecycle events of HTTP exchanges.
///
/// Implement one method; new information about exchanges arrives as new fields of
/// ``HTTPEvent``, never as new callbacks, so observers keep compiling as the event grows.
/// The one other method, ``handleMissedEvents(_:)``, is about the delivery rather than an
/// exchange (events the dispatcher had to drop), has a default that does nothing, and takes
/// a value that can grow too. It is not an event, so that observers that count or forward
/// every event never see one without a request.
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
/// waiting for it are bounded (see ``HTTPEventDispatcher``). Events dropped for it are
/// told to ``handleMissedEvents(_:)``, in order, just before the next event it receives;
/// implement it when what the observer reports (entries, logs, counts) must say what it
/// never saw:
///
/// ```swift
/// func handleMissedEvents(_ missed: HTTPMissedEvents) {
///     counts.recordUnknown(missed.terminalCount)   // exchanges that ended unseen
/// }
/// ```
public protocol HTTPObserver: Sendable {
    /// Handles one event. Called serially for this observer, never on the request path.
    func handle(_ event: HTTPEvent)

    /// Learns that the dispatcher dropped `missed` events for this observer because its
    /// buffer was full. Called serially with ``handle(_:)``, once per gap, just before the
    /// first event delivered after the dropped ones, so the observer knows where the gap is.
    /// The default implementation does nothing.
    func handleMissedEvents(_ missed: HTTPMissedEvents)

    /// The names of the events this observer handles, read once when it subscribes; `nil`
    /// (the default) for every event.
    ///
    /// The dispatcher queues no other event for it: an observer that reads only terminal
    /// events costs the request path nothing on the other steps. Events not handled are not
    /// counted in its ``HTTPObserverStatistics`` and never reported as missed.
    ///
    /// ```swift
    /// var handledEventNames: Set<HTTPEvent.Name>? { [.requestSucceeded, .requestFailed, .requestCancelled] }
    /// ```
    var handledEventNames: Set<HTTPEvent.Name>? { get }
}

extension HTTPObserver {
    /// Does nothing: an observer that does not implement it ignores gaps.
    public func handleMissedEvents(_ missed: HTTPMissedEvents) {}

    /// `nil`: every event.
    public var handledEventNames: Set<HTTPEvent.Name>? { nil }
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
