import Foundation
import HTTPCoreConcurrency

/// What an observer keeps for each exchange in flight, from its created event to its
/// terminal one: the meter it counted the exchange on, the span context it was created in.
///
/// ```swift
/// let contexts = HTTPExchangeTable<ServiceContext>(owner: "MyObserver")
/// // In handle(_:):
/// if event.name == .requestCreated, let context = ServiceContext.current {
///     contexts.keep(context, for: event.requestID)
/// } else if event.name.isTerminal {
///     let parent = contexts.take(for: event.requestID)
/// }
/// ```
///
/// The table is bounded: once ``limit`` exchanges are kept, one created after them is not
/// (``keep(_:for:)`` returns `false`) and is counted (``untrackedCount``). A table stays full
/// when terminal events are missed, because an observer's subscription was cancelled while
/// exchanges were in flight, so a full table is reported, never silent: a warning when it
/// first refuses an exchange, and a notice with how many it refused once it has room again
/// (``HTTPDiagnostics``, or the handler given).
///
/// Reports are made after the table's lock is released, so a slow handler never holds up
/// the exchanges that keep and take meanwhile, and a handler may use the table. They still
/// arrive one at a time and in order, warning, notice, warning, …, even when threads race:
/// one thread delivers at a time, and a thread whose report is due while another delivers
/// leaves it to that one, which delivers it next. A notice counts every exchange refused
/// since the warning before it: when the table fills and empties several times while one
/// report is being delivered, the fillings it missed are reported as one.
///
/// The same request value may be sent again before its first exchange ended: the exchanges of
/// one id are taken first in, first out. Keeping and taking the first exchange of an id
/// allocates nothing once the table has grown. Thread-safe: one lock, held for a dictionary
/// access (and the look-up of ``keep(for:lookingUp:making:storing:)``), never while reporting.
public final class HTTPExchangeTable<Value: Sendable>: Sendable {
    /// The most exchanges kept at once.
    public let limit: Int
    /// The name reports give as their source: the observer's type.
    public let owner: String
    private let diagnostics: @Sendable (HTTPDiagnostic) -> Void
    // keep and take are inlinable, so that an observer's module specializes them for its value:
    // unspecialized, each dictionary access and optional cost a generic metadata look-up, about
    // 4,000 of the 11,000 instructions MetricsObserver spent per exchange (callgrind). What is
    // inlined is the lock and the dictionaries; the reports stay behind `refuse()` and
    // `endFilling()`, not generic, so called without metadata. The lock is the package's one
    // lock type, `Locked`, whose closures inline where keep and take are specialized.
    /// The exchanges kept and the reports due; its lock is never held while a report is made.
    @usableFromInline let state = Locked(State())

    /// The exchanges kept, and the reports due: a value changed only under the table's lock.
    /// Its fields are used in place, never through methods of its own, which would take its
    /// generic metadata where the table is not specialized.
    @usableFromInline
    struct State {
        /// The value of each id's first exchange in flight.
        @usableFromInline var first: [HTTPRequest.ID: Value] = [:]
        /// The values of later exchanges of an id already in flight, first in, first out.
        @usableFromInline var later: [HTTPRequest.ID: [Value]] = [:]
        /// How many exchanges are kept, first and later ones.
        @usableFromInline var count = 0
        /// The refusals counted and the reports they make due.
        @usableFromInline var reports = HTTPExchangeTableReports()
    }

    /// A table of at most `limit` (at least 0) exchanges, reporting as `owner` to
    /// `diagnostics`, ``HTTPDiagnostics/report(_:)`` by default.
    ///
    /// `diagnostics` is called on the thread of a ``keep(_:for:)`` or ``take(for:)``, outside
    /// the table's lock, one report at a time.
    public init(
        limit: Int, owner: String, diagnostics: @escaping @Sendable (HTTPDiagnostic) -> Void = { HTTPDiagnostics.report($0) }
    ) {
        self.limit = max(0, limit)
        self.owner = owner
        self.diagnostics = diagnostics
    }

    /// How many exchanges were refused because ``limit`` others were kept.
    public var untrackedCount: Int {
        state.withLock { $0.reports.untracked }
    }

    /// How many exchanges are kept now.
    public var count: Int {
        state.withLock { $0.count }
    }

    /// Keeps `value` for exchange `id` until ``take(for:)``; `false`, and the exchange
    /// counted, when ``limit`` exchanges are kept already.
    @inlinable
    @discardableResult
    public func keep(_ value: Value, for id: HTTPRequest.ID) -> Bool {
        let kept = state.withLock { state -> Found in
            guard state.count < limit else { return .refused(delivers: state.reports.refuse()) }
            Self.insert(value, for: id, into: &state)
            return .kept(value)
        }
        guard case .refused(let delivers) = kept else { return true }
        if delivers { deliverReports() }
        return false
    }

    /// Keeps for exchange `id` a value found under the table's lock, or made outside it: for
    /// an observer whose values come from a cache of its own, guarded by this lock where it is
    /// read, so that finding a cached value and keeping it take one lock per exchange, not two.
    ///
    /// ```swift
    /// activeExchanges.keep(
    ///     for: event.requestID,
    ///     lookingUp: { meters.cached(for: destination) },      // under the lock
    ///     making: { meters.make(for: destination) },           // outside it: the factory is the app's
    ///     storing: { meters.cache($0, for: destination) }      // under the lock again
    /// )?.increment()
    /// ```
    ///
    /// `lookUp` and `store` run under the table's lock: they must be short and must not call
    /// code their caller does not own (a factory, a handler) nor use this table, for they hold
    /// up every exchange that keeps or takes meanwhile.
    ///
    /// - Parameters:
    ///   - id: The exchange.
    ///   - lookUp: The value to keep, when there is one already; under the lock.
    ///   - make: Makes a value when `lookUp` found none; outside the lock, so it may call any
    ///     code.
    ///   - store: Given the value `make` made, the one to keep (one another thread stored
    ///     meanwhile, or the one made, stored); under the lock.
    /// - Returns: The value kept; `nil` when ``limit`` exchanges are kept already: the exchange
    ///   is refused and counted, as by ``keep(_:for:)``, and nothing is looked up or made.
    @inlinable
    public func keep(
        for id: HTTPRequest.ID, lookingUp lookUp: () -> Value?, making make: () -> Value, storing store: (Value) -> Value
    ) -> Value? {
        let found = state.withLock { state -> Found in
            guard state.count < limit else { return .refused(delivers: state.reports.refuse()) }
            guard let found = lookUp() else { return .notFound }
            Self.insert(found, for: id, into: &state)
            return .kept(found)
        }
        switch found {
        case .kept(let value):
            return value
        case .refused(let delivers):
            if delivers { deliverReports() }
            return nil
        case .notFound:
            break
        }
        let made = make()
        let stored = state.withLock { state -> Found in
            guard state.count < limit else { return .refused(delivers: state.reports.refuse()) }
            let value = store(made)
            Self.insert(value, for: id, into: &state)
            return .kept(value)
        }
        guard case .kept(let value) = stored else {
            if case .refused(delivers: true) = stored { deliverReports() }
            return nil
        }
        return value
    }

    /// The value kept for exchange `id`, forgotten now; `nil` when none was kept (refused, or
    /// created before the observer subscribed).
    @inlinable
    public func take(for id: HTTPRequest.ID) -> Value? {
        var delivers = false
        let value = state.withLock { state -> Value? in
            // One hash of the id in the usual case: removed as it is found, and `later`, empty
            // unless a request value is in flight twice, is not looked in.
            guard let value = state.first.removeValue(forKey: id) else { return nil }
            if !state.later.isEmpty, var later = state.later.removeValue(forKey: id) {
                state.first[id] = later.removeFirst()
                if !later.isEmpty { state.later[id] = later }
            }
            state.count -= 1
            delivers = state.reports.endFilling()
            return value
        }
        if delivers { deliverReports() }
        return value
    }

    /// What keeping, or looking up a value to keep, came to under the lock.
    @usableFromInline
    enum Found {
        /// The value kept.
        case kept(Value)
        /// Nothing kept, as the table is full; whether this thread is to deliver the reports.
        case refused(delivers: Bool)
        /// Nothing found: a value is to be made.
        case notFound
    }

    /// Keeps `value` after the exchanges of `id` kept already; under the lock.
    @inlinable
    static func insert(_ value: Value, for id: HTTPRequest.ID, into state: inout State) {
        state.count += 1
        // One hash of the id in the usual case; a request value already in flight keeps its
        // first value there, and this one waits behind it.
        if let first = state.first.updateValue(value, forKey: id) {
            state.first[id] = first
            state.later[id, default: []].append(value)
        }
    }

    /// Delivers the reports due, one at a time, until none is: those of other threads too,
    /// made while this one delivered. Not inlinable, as the reports are not: the code inlined
    /// in other modules is the dictionary access only.
    @usableFromInline
    func deliverReports() {
        while true {
            guard let report = state.withLock({ $0.reports.claimNext() }) else { return }
            diagnostics(diagnostic(for: report))
        }
    }

    /// The diagnostic that makes `report`, as `owner`.
    private func diagnostic(for report: HTTPExchangeTableReports.Report) -> HTTPDiagnostic {
        switch report {
        case .full:
            HTTPDiagnostic(
                source: owner, level: .warning,
                message: "\(limit) exchanges in flight are kept already; exchanges created until one ends are not. "
                    + "If fewer are in flight, terminal events were missed: a subscription cancelled while exchanges were in flight",
                metadata: ["limit": String(limit)]
            )
        case .room(let refused):
            HTTPDiagnostic(
                source: owner, level: .notice,
                message: "exchanges in flight are kept again; \(refused) created while \(limit) were kept were not",
                metadata: ["limit": String(limit), "untracked": String(refused)]
            )
        }
    }
}
