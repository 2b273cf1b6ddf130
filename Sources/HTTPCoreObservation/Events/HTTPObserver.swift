/// Receives the lifecycle events of HTTP exchanges.
///
/// Implement one method; new information about exchanges arrives as new fields of
/// ``HTTPEvent``, never as new callbacks, so observers keep compiling as the event grows.
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
/// ## Handled inline, like a span processor
///
/// ``HTTPEventDispatcher`` calls `handle(_:)` synchronously, on the task that emitted the
/// event, as OpenTelemetry calls a span processor's `onStart` and `onEnd`: the caller's
/// task-locals (a swift-log metadata provider's values, a `ServiceContext`, the active span)
/// are the ones of the exchange. So `handle(_:)` must not block and must do bounded work:
///
/// - **May**: read the event, update counters and metrics, log through a `LogHandler`, append
///   the event to a bounded buffer. Anything swift-log allows a `LogHandler` and swift-metrics
///   allows its handlers.
/// - **May not**: wait for I/O, a lock held across I/O, a network answer, a disk write, or
///   another task. A sink that ships or stores takes the event into a bounded queue of its
///   own and does the work there; HTTPCore's sinks use the delivery engine
///   (`DeliveryQueue`, in HTTPCoreDelivery). An observer that may block is wrapped in
///   `QueuedObserver`, which runs it on that engine's worker, with its bounded buffer and
///   its counted drops.
///
/// Calls come from every task that runs an exchange, so they may overlap: keep state behind
/// a lock or in atomics. The events of one exchange arrive in lifecycle order, each after the
/// previous one's `handle(_:)` returned.
public protocol HTTPObserver: Sendable {
    /// Handles one event, on the task that emitted it. Must not block (see ``HTTPObserver``).
    func handle(_ event: HTTPEvent)

    /// The names of the events this observer handles, read once when it subscribes; `nil`
    /// (the default) for every event.
    ///
    /// The dispatcher hands it no other event, and a client builds no event that no observer
    /// handles: an observer that reads only terminal events costs the request path nothing
    /// on the other steps.
    ///
    /// ```swift
    /// var handledEventNames: Set<HTTPEvent.Name>? { [.requestSucceeded, .requestFailed, .requestCancelled] }
    /// ```
    var handledEventNames: Set<HTTPEvent.Name>? { get }

    /// Returns when the work that `handle(_:)` queued for the events it was handed is done,
    /// as far as this observer owns it. ``HTTPEventDispatcher/flush()`` awaits it. The default
    /// returns at once: an observer that does its work in `handle(_:)` has nothing pending.
    func flush() async
}

extension HTTPObserver {
    /// `nil`: every event.
    public var handledEventNames: Set<HTTPEvent.Name>? { nil }

    /// Returns at once: nothing is pending once `handle(_:)` returned.
    public func flush() async {}
}

/// An ``HTTPObserver`` that forwards every event to a closure, inline: the closure must not
/// block.
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
