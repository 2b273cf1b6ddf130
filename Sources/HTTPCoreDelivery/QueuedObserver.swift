import Dispatch
import HTTPCore
import HTTPCoreObservation

/// Runs an observer that may block off the request path, through a ``DeliveryQueue``.
///
/// ``/HTTPCoreObservation/HTTPEventDispatcher`` calls every observer inline, on the task that emitted
/// the event, so ``/HTTPCoreObservation/HTTPObserver/handle(_:)`` must not block. Wrap an observer that
/// does (one that writes each exchange to a database, a file, a socket) and subscribe the
/// wrapper: its `handle(_:)` appends the event to the queue's bounded buffer and returns,
/// and the wrapped observer handles the events on a serial dispatch queue of its own, in the
/// order they were emitted, in batches.
///
/// ```swift
/// let writer = QueuedObserver(ExchangeTableWriter(database: database))
/// dispatcher.subscribe(writer)
/// ...
/// await writer.shutdown()   // hands it what is still buffered, then stops
/// ```
///
/// It is the delivery engine HTTPCore's sinks use, with its guarantees: the buffer holds at
/// most ``DeliveryConfiguration/bufferLimit`` events and ``DeliveryConfiguration/bufferByteLimit``
/// bytes (what the events keep alive), the oldest are dropped first when the wrapped
/// observer falls behind, and every event ends in one counter of ``statistics``, with each
/// overflow reported once to `HTTPDiagnostics.handler`, never once per event: as a report of
/// `QueuedObserver<Observer>` about events with ``defaultConfiguration`` and configurations
/// changed from it, as one of `DeliveryQueue` about items with a `DeliveryConfiguration()`.
/// ``/HTTPCoreObservation/HTTPEventDispatcher/flush()`` returns once the wrapped observer handled every
/// event emitted before it.
///
/// The wrapped observer loses the emitting task's task-locals: a log line it writes does not
/// carry the request's metadata. An observer that does not block needs no wrapper.
public final class QueuedObserver<Observer: HTTPObserver>: HTTPObserver {
    /// The default configuration: batches of up to 256 events, sent as soon as there is one.
    public static var defaultConfiguration: DeliveryConfiguration {
        var configuration = DeliveryConfiguration()
        configuration.batching = .init(maximumCount: 256)
        configuration.diagnostics = { HTTPDiagnostics.report($0.diagnostic(source: "QueuedObserver<\(Observer.self)>", items: "event")) }
        return configuration
    }

    /// The wrapped observer.
    package let observer: Observer
    private let queue: DeliveryQueue<HandlingSender>

    /// Wraps `observer`.
    ///
    /// - Parameters:
    ///   - observer: The observer that handles the events, on a serial dispatch queue of its
    ///     own.
    ///   - configuration: The buffer's limits, batching and maximum age; events are handed
    ///     over one batch at a time, never retried, so its concurrency, retry and build-ahead
    ///     settings do not apply. By default ``defaultConfiguration``.
    public convenience init(_ observer: Observer, configuration: DeliveryConfiguration = QueuedObserver.defaultConfiguration) {
        self.init(observer, configuration: configuration) { event in
            observer.handle(event)
            return true
        }
    }

    /// Wraps `observer`, which `handle` hands each event, saying whether the observer took it
    /// or left it out by a rule of its own: the events it left out are counted as
    /// ``DeliveryStatistics/skipped``, not delivered (a console's writer drops a success below
    /// its minimum level once its notes are made, which ``handle(_:)`` cannot do on the
    /// request's task).
    ///
    /// - Parameters:
    ///   - observer: The observer that handles the events.
    ///   - configuration: As for ``init(_:configuration:)``.
    ///   - handle: Hands one event to `observer` on its serial dispatch queue; returns `false`
    ///     when it left the event out.
    package init(
        _ observer: Observer, configuration: DeliveryConfiguration = QueuedObserver.defaultConfiguration,
        handlingEach handle: @escaping @Sendable (HTTPEvent) -> Bool
    ) {
        var configuration = configuration
        configuration.maximumConcurrentSends = 1
        configuration.buildsBatchesAhead = false
        configuration.maximumRetries = 0
        self.observer = observer
        queue = DeliveryQueue(sender: HandlingSender(handle: handle), configuration: configuration)
    }

    /// The wrapped observer's.
    public var handledEventNames: Set<HTTPEvent.Name>? { observer.handledEventNames }

    /// Appends the event to the buffer and returns.
    ///
    /// - Parameter event: The event the dispatcher delivers, on the task that emitted it.
    public func handle(_ event: HTTPEvent) {
        queue.enqueue(event, byteCost: event.queuedByteCount)
    }

    /// Returns when the wrapped observer handled every event accepted before the call.
    public func flush() async {
        await queue.flush()
    }

    /// Hands the wrapped observer what is buffered, then stops: events that arrive later are
    /// counted as dropped and reported.
    public func shutdown() async {
        await queue.shutdown()
    }

    /// The events accepted, handed to the wrapped observer (`delivered`, or `skipped` when it
    /// left them out), dropped and pending.
    public var statistics: DeliveryStatistics { queue.statistics }
}

/// Hands each batch of events to an observer on a serial dispatch queue, so that an observer
/// that blocks holds a thread of its own rather than one of the cooperative pool's.
struct HandlingSender: DeliverySender {
    /// Hands one event to the observer; `false` when it left the event out.
    let handle: @Sendable (HTTPEvent) -> Bool
    let handlingQueue = DispatchQueue(label: "HTTPCoreDelivery.QueuedObserver", qos: .utility)

    func makeBatch(_ events: [HTTPEvent]) -> [HTTPEvent] { events }

    func send(_ events: [HTTPEvent]) async -> DeliveryOutcome {
        let skipped = await withCheckedContinuation { (continuation: CheckedContinuation<Int, Never>) in
            handlingQueue.async {
                var skipped = 0
                for event in events where !handle(event) { skipped += 1 }
                continuation.resume(returning: skipped)
            }
        }
        return skipped == 0 ? .delivered : .skipped(count: skipped)
    }
}
