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
    private let queue: DeliveryQueue<HandlingSender<Observer>>

    /// Wraps `observer`.
    ///
    /// - Parameters:
    ///   - observer: The observer that handles the events, on a serial dispatch queue of its
    ///     own.
    ///   - configuration: The buffer's limits, batching and maximum age; events are handed
    ///     over one batch at a time, never retried, so its concurrency, retry and build-ahead
    ///     settings do not apply. By default ``defaultConfiguration``.
    public init(_ observer: Observer, configuration: DeliveryConfiguration = QueuedObserver.defaultConfiguration) {
        var configuration = configuration
        configuration.maximumConcurrentSends = 1
        configuration.buildsBatchesAhead = false
        configuration.maximumRetries = 0
        self.observer = observer
        queue = DeliveryQueue(sender: HandlingSender(observer: observer), configuration: configuration)
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

    /// The events accepted, handed to the wrapped observer (`delivered`), dropped and pending.
    public var statistics: DeliveryStatistics { queue.statistics }
}

/// Hands each batch of events to an observer on a serial dispatch queue, so that an observer
/// that blocks holds a thread of its own rather than one of the cooperative pool's.
struct HandlingSender<Observer: HTTPObserver>: DeliverySender {
    let observer: Observer
    let handlingQueue = DispatchQueue(label: "HTTPCoreDelivery.QueuedObserver", qos: .utility)

    func makeBatch(_ events: [HTTPEvent]) -> [HTTPEvent] { events }

    func send(_ events: [HTTPEvent]) async -> DeliveryOutcome {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            handlingQueue.async {
                for event in events { observer.handle(event) }
                continuation.resume()
            }
        }
        return .delivered
    }
}
