import HTTPCoreConcurrency

/// Hands lifecycle events to observers, inline, on the task that emitted them.
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
/// It works like OpenTelemetry's span processors:
/// - Emitting an event calls each subscribed observer's ``HTTPObserver/handle(_:)`` in turn,
///   in subscription order, and returns when they have. Nothing is buffered here, no thread
///   is woken, nothing is dropped: the cost of an event is the cost of its observers'
///   `handle(_:)`, which must not block (see ``HTTPObserver``).
/// - Observers see the emitting task's task-locals: a log line carries the metadata of the
///   request that made the call, a span or a log record the trace of its exchange.
/// - Work that may be slow (shipping, storing, writing a file) is the observer's, on a queue
///   of its own. HTTPCore's sinks (dev-see, Loki) take the event into their delivery
///   engine's bounded buffer; what they drop there is counted and reported once, by that
///   engine. A HAR recorder keeps events and builds its archive when asked.
/// - An event no subscribed observer handles (``HTTPObserver/handledEventNames``) is never
///   built.
public final class HTTPEventDispatcher: Sendable {
    /// The dispatcher of clients that are not given one; observers subscribed here see them.
    public static let shared = HTTPEventDispatcher()

    /// The observers, in subscription order: replaced on each change, read as one snapshot
    /// per event.
    private let subscribers = Locked<[Subscriber]>([])

    /// Creates a dispatcher without observers.
    public init() {}

    /// Lets the observers go: a subscription outliving the dispatcher holds the emptied list.
    deinit {
        subscribers.withLock { $0.removeAll() }
    }

    /// Whether any observer is subscribed.
    public var hasObservers: Bool {
        subscribers.withLock { !$0.isEmpty }
    }

    /// Whether any subscribed observer handles terminal events (``HTTPEvent/Name/isTerminal``):
    /// the only events that carry what a client reads for them, an LLM call's facts.
    var hasTerminalEventObservers: Bool {
        subscribers.withLock { $0.contains { $0.handlesTerminalEvents } }
    }

    /// Subscribes an observer to every event emitted from now on.
    @discardableResult
    public func subscribe(_ observer: some HTTPObserver) -> HTTPEventSubscription {
        let subscriber = Subscriber(observer)
        subscribers.withLock { $0.append(subscriber) }
        // The list, not the dispatcher: a weak reference to the dispatcher would give it a side
        // table, and every retain and release of it (clients hold it) would take the runtime's
        // slow path, about 125 instructions a pair. The dispatcher empties the list as it goes,
        // so a subscription kept longer keeps no observer alive.
        return HTTPEventSubscription(subscriber) { [subscribers] cancelled in
            subscribers.withLock { subscribers in subscribers.removeAll { $0 === cancelled } }
        }
    }

    /// Subscribes a closure to every event emitted from now on; it runs inline and must not
    /// block.
    @discardableResult
    public func subscribe(_ handler: @escaping @Sendable (HTTPEvent) -> Void) -> HTTPEventSubscription {
        subscribe(ClosureObserver(handler))
    }

    /// Hands an event to every subscribed observer: for the package's benchmarks and tests.
    /// Clients are built on ``/HTTPCore/HTTPTransport``, and ``HTTPTransportClient`` emits every event;
    /// to test an observer, hand it events made as values
    /// (``HTTPEvent/requestSucceeded(_:to:attempt:startedAt:endedAt:policy:attachments:)`` and the other
    /// factories).
    package func emit(_ event: HTTPEvent) {
        emit(event.name) { _ in event }
    }

    /// Hands the event `make` builds, named `name`, to every subscribed observer that handles
    /// events of that name; when none does, builds nothing. The client's way to emit: an
    /// event no observer asked for costs no allocation.
    func emit(_ name: HTTPEvent.Name, _ make: (HTTPEvent.Name) -> HTTPEvent) {
        let subscribers = subscribers.withLock { $0 }
        var event: HTTPEvent?
        for subscriber in subscribers where subscriber.handles(name) {
            let built = event ?? make(name)
            event = built
            subscriber.observer.handle(built)
        }
    }

    /// Returns when every observer subscribed at the time of the call has finished the work
    /// it queued for the events it was handed (``HTTPObserver/flush()``). Events emitted
    /// before the call were handed over already: emitting returns only after that.
    public func flush() async {
        for subscriber in subscribers.withLock({ $0 }) {
            await subscriber.observer.flush()
        }
    }
}

/// One subscribed observer, with the names it handles read once.
final class Subscriber: Sendable {
    let observer: any HTTPObserver
    /// The built-in names the observer handles, as their bits (``HTTPEvent/Name/builtInBit``):
    /// every event is matched against them on its way to the observer, with one `&`.
    private let handledBuiltInBits: UInt16
    /// The other names it handles (only the package's tests make such names): a short array,
    /// whose few comparisons cost less than hashing a name.
    private let handledOtherNames: [HTTPEvent.Name]
    /// Whether it handles every name (``HTTPObserver/handledEventNames`` is `nil`).
    private let handlesEveryName: Bool
    /// Whether the observer handles any terminal event.
    let handlesTerminalEvents: Bool
    private let cancelled = Locked(false)

    init(_ observer: some HTTPObserver) {
        self.observer = observer
        let names = observer.handledEventNames
        handlesEveryName = names == nil
        handledBuiltInBits = names?.reduce(0) { $0 | $1.builtInBit } ?? 0
        handledOtherNames = names?.filter { $0.builtInBit == 0 } ?? []
        handlesTerminalEvents = names?.contains(where: \.isTerminal) ?? true
    }

    /// Whether the observer handles events named `name`.
    func handles(_ name: HTTPEvent.Name) -> Bool {
        if handlesEveryName { return true }
        let bit = name.builtInBit
        return bit != 0 ? handledBuiltInBits & bit != 0 : handledOtherNames.contains(name)
    }

    /// Whether its subscription was cancelled.
    var isCancelled: Bool { cancelled.withLock { $0 } }

    /// Marks it cancelled.
    func cancel() { cancelled.withLock { $0 = true } }
}
