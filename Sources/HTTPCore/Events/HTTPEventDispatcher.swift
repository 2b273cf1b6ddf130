import Dispatch
import HTTPCoreConcurrency

/// Fans lifecycle events out to observers, off the request path.
///
/// Clients emit into a dispatcher; observers subscribe to it. Share one dispatcher between
/// every client of an app and subscribing an observer once sees every exchange:
///
/// ```swift
/// let dispatcher = HTTPEventDispatcher()
/// let subscription = dispatcher.subscribe(DevSeeObserver())
/// let client = URLSessionClient(dispatcher: dispatcher)
/// ...
/// await dispatcher.flush()   // at shutdown, or in tests
/// subscription.cancel()
/// ```
///
/// Guarantees:
/// - Emitting an event never waits for an observer: it appends to each observer's buffer under a
///   short lock and returns.
/// - Each observer has its own bounded buffer of `bufferLimit` events and its own delivery;
///   a slow observer delays neither requests nor other observers. When its buffer is full,
///   the oldest event waiting for that observer is dropped and counted in its
///   ``HTTPEventSubscription/statistics``.
/// - Each observer receives events one at a time, in emission order, so the events of one
///   request arrive in lifecycle order.
/// - An observer learns what it missed: the events dropped for it are told to its
///   ``HTTPObserver/handleMissedEvents(_:)`` (how many, and how many of them ended an
///   exchange or an attempt) just before the first event it receives after them. Each such
///   overflow is reported to `diagnostics` twice, in order: when its first event is dropped
///   and when it ends, with the same count the observer was told; never once per event.
/// - Events wait at most 5 ms before their delivery starts. A terminal event starts it at
///   once when the observer's previous delivery began at least 5 ms earlier, so a lone
///   exchange costs its observer one wake-up rather than four, and under load an observer
///   wakes at most once per 5 ms for a batch, not once per exchange. ``flush()`` does not
///   wait for that delay.
public final class HTTPEventDispatcher: Sendable {
    /// The default number of events buffered per observer.
    public static let defaultBufferLimit = 10_000

    /// The dispatcher of clients that are not given one; observers subscribed here see them.
    public static let shared = HTTPEventDispatcher()

    private let bufferLimit: Int
    /// Runs the diagnostics closure, one report at a time in the order they were made;
    /// `nil` without one.
    private let diagnosticsQueue: DispatchQueue?
    private let diagnostics: (@Sendable (HTTPObserverDiagnostic) -> Void)?
    private let deliveryQueue = DispatchQueue(
        label: "HTTPCore.HTTPEventDispatcher.delivery",
        qos: .utility,
        attributes: .concurrent
    )
    private let queues = Locked<[ObserverQueue]>([])

    /// Creates a dispatcher whose observers each buffer up to `bufferLimit` events (a value
    /// below 1 buffers one), and which reports their overflows to `diagnostics`: by default
    /// to ``HTTPDiagnostics/handler``, as ``HTTPObserverDiagnostic/diagnostic``.
    ///
    /// With `nil` overflows are only counted (HTTPCore's observers that keep or ship records
    /// still say what they missed, through ``HTTPObserver/handleMissedEvents(_:)`` and their
    /// own diagnostics). `diagnostics` runs on a serial queue of the dispatcher's own, never
    /// on the emitting thread, one report at a time and in order; ``flush()`` returns after
    /// the reports of the events it waited for.
    public init(
        bufferLimit: Int = HTTPEventDispatcher.defaultBufferLimit,
        diagnostics: (@Sendable (HTTPObserverDiagnostic) -> Void)? = { HTTPDiagnostics.report($0.diagnostic) }
    ) {
        self.bufferLimit = bufferLimit
        self.diagnostics = diagnostics
        diagnosticsQueue = diagnostics == nil ? nil : DispatchQueue(label: "HTTPCore.HTTPEventDispatcher.diagnostics", qos: .utility)
    }

    /// Whether any observer is subscribed.
    public var hasObservers: Bool {
        queues.withLock { !$0.isEmpty }
    }

    /// Subscribes an observer to every event emitted from now on.
    @discardableResult
    public func subscribe(_ observer: some HTTPObserver) -> HTTPEventSubscription {
        let queue = ObserverQueue(observer: observer, limit: bufferLimit, deliveryQueue: deliveryQueue, report: report)
        queues.withLock { $0.append(queue) }
        return HTTPEventSubscription(queue: queue) { [weak self] cancelled in
            self?.queues.withLock { queues in queues.removeAll { $0 === cancelled } }
        }
    }

    /// Subscribes a closure to every event emitted from now on.
    @discardableResult
    public func subscribe(_ handler: @escaping @Sendable (HTTPEvent) -> Void) -> HTTPEventSubscription {
        subscribe(ClosureObserver(handler))
    }

    /// Hands an event to every subscribed observer without waiting for any of them: for the
    /// package's benchmarks and tests. Clients are built on ``HTTPTransport``, and
    /// ``HTTPTransportClient`` emits every event; to test an observer, hand it events made
    /// as values (``HTTPEvent/requestSucceeded(_:to:attempt:startedAt:endedAt:policy:)`` and
    /// the other factories).
    package func emit(_ event: HTTPEvent) {
        emit(event.name) { _ in event }
    }

    /// Emits the event `make` builds, named `name`, when a subscribed observer handles events
    /// of that name; otherwise builds nothing. The client's way to emit: an event no observer
    /// asked for costs no allocation.
    func emit(_ name: HTTPEvent.Name, _ make: (HTTPEvent.Name) -> HTTPEvent) {
        let queues = queues.withLock { $0 }
        guard queues.contains(where: { $0.handles(name) }) else { return }
        let event = make(name)
        for queue in queues {
            queue.enqueue(event)
        }
    }

    /// Suspends until every event emitted before the call was delivered to (or dropped for)
    /// every observer subscribed at the time of the call, and the diagnostics reported about
    /// them ran; or until the calling task is cancelled.
    public func flush() async {
        for queue in queues.withLock({ $0 }) {
            await queue.waitUntilSettled()
        }
        // Reports are queued before the events they describe settle: they are in this queue.
        if let diagnosticsQueue {
            await withCheckedContinuation { continuation in diagnosticsQueue.async { continuation.resume() } }
        }
    }

    /// Queues a report for `diagnostics` without running it, so an observer's queue can make
    /// it under its lock.
    private var report: (@Sendable (HTTPObserverDiagnostic) -> Void)? {
        guard let diagnostics, let diagnosticsQueue else { return nil }
        return { report in diagnosticsQueue.async { diagnostics(report) } }
    }
}
