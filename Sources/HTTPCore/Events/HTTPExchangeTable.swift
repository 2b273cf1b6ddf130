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
/// access, never while reporting.
public final class HTTPExchangeTable<Value: Sendable>: Sendable {
    /// The most exchanges kept at once.
    public let limit: Int
    /// The name reports give as their source: the observer's type.
    public let owner: String
    private let diagnostics: @Sendable (HTTPDiagnostic) -> Void
    private let state: Locked<State>

    /// The exchanges kept, and the reports due: a value changed only under the table's lock.
    private struct State {
        /// The value of each id's first exchange in flight.
        var first: [HTTPRequest.ID: Value] = [:]
        /// The values of later exchanges of an id already in flight, first in, first out.
        var later: [HTTPRequest.ID: [Value]] = [:]
        var count = 0
        var untracked = 0
        /// Exchanges refused since the table last had room: non-zero while it is full and
        /// refusing.
        var refusedWhileFull = 0
        /// Exchanges refused in fillings that ended (the table had room again) that no notice
        /// has counted yet.
        var refusedUncounted = 0
        /// Whether the last report claimed is a warning, its notice not claimed yet.
        var hasWarned = false
        /// Whether a thread is delivering reports; it claims and delivers every report due
        /// until none is.
        var isDelivering = false

        /// Counts an exchange refused; `true` when the caller is to deliver the reports due:
        /// the table just filled and no thread delivers already.
        mutating func refuse() -> Bool {
            untracked += 1
            refusedWhileFull += 1
            // Once per time the table fills, not once per exchange.
            return refusedWhileFull == 1 && startDelivering()
        }

        /// Ends a filling as an exchange is taken; `true` when the caller is to deliver the
        /// reports due: the table was refusing and no thread delivers already.
        mutating func endFilling() -> Bool {
            guard refusedWhileFull > 0 else { return false }
            refusedUncounted += refusedWhileFull
            refusedWhileFull = 0
            return startDelivering()
        }

        /// Makes the caller the thread that delivers the reports due, unless one already is.
        mutating func startDelivering() -> Bool {
            guard !isDelivering else { return false }
            isDelivering = true
            return true
        }

        /// The next report due, claimed by the delivering thread; `nil`, and delivering ended,
        /// when none is.
        mutating func claimNextReport() -> Report? {
            if !hasWarned, refusedWhileFull > 0 || refusedUncounted > 0 {
                hasWarned = true
                return .full
            }
            if hasWarned, refusedUncounted > 0 {
                defer { refusedUncounted = 0 }
                hasWarned = false
                return .room(afterRefusing: refusedUncounted)
            }
            isDelivering = false
            return nil
        }
    }

    /// What ``keep(for:lookingUp:)`` did with an exchange.
    public enum Keeping: Sendable {
        /// Kept, with the value found.
        case kept(Value)
        /// Refused and counted: ``limit`` exchanges are kept already.
        case refused
        /// Not kept: the look-up found no value.
        case notFound
    }

    /// A report on the table's room.
    private enum Report {
        /// Full: an exchange was refused.
        case full
        /// Room again, after `afterRefusing` exchanges were refused.
        case room(afterRefusing: Int)
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
        state = Locked(State())
    }

    /// How many exchanges were refused because ``limit`` others were kept.
    public var untrackedCount: Int {
        state.withLock { $0.untracked }
    }

    /// How many exchanges are kept now.
    public var count: Int {
        state.withLock { $0.count }
    }

    /// Keeps `value` for exchange `id` until ``take(for:)``; `false`, and the exchange
    /// counted, when ``limit`` exchanges are kept already.
    @discardableResult
    public func keep(_ value: Value, for id: HTTPRequest.ID) -> Bool {
        if case .kept = keep(for: id, lookingUp: { value }) { return true }
        return false
    }

    /// Keeps for exchange `id` the value `lookUp` finds, calling it under the table's lock:
    /// for an observer whose values come from a cache of its own, guarded by this lock, so
    /// that finding the value and keeping it take one lock per exchange, not two.
    ///
    /// ```swift
    /// switch meters.keep(for: event.requestID, lookingUp: { cachedMeter(for: destination) }) {
    /// case .kept(let meter): meter.increment()
    /// case .refused: break
    /// case .notFound: // make it, outside the lock, then keep(for:lookingUp:) again to store and keep it
    /// }
    /// ```
    ///
    /// `lookUp` must be short and must not call code its caller does not own (a factory, a
    /// handler) nor use this table: it holds up every exchange that keeps or takes meanwhile.
    /// It is not called when ``limit`` exchanges are kept already: the exchange is refused and
    /// counted, as ``keep(_:for:)`` does. When it finds nothing, nothing is kept.
    public func keep(for id: HTTPRequest.ID, lookingUp lookUp: () -> Value?) -> Keeping {
        let (keeping, delivers) = state.withLock { state -> (Keeping, Bool) in
            guard state.count < limit else { return (.refused, state.refuse()) }
            guard let value = lookUp() else { return (.notFound, false) }
            state.count += 1
            if state.first[id] == nil {
                state.first[id] = value
            } else {
                state.later[id, default: []].append(value)
            }
            return (.kept(value), false)
        }
        if delivers { deliverReports() }
        return keeping
    }

    /// The value kept for exchange `id`, forgotten now; `nil` when none was kept (refused, or
    /// created before the observer subscribed).
    public func take(for id: HTTPRequest.ID) -> Value? {
        let (value, delivers) = state.withLock { state -> (Value?, Bool) in
            guard let value = state.first[id] else { return (nil, false) }
            if var later = state.later[id], !later.isEmpty {
                state.first[id] = later.removeFirst()
                state.later[id] = later.isEmpty ? nil : later
            } else {
                state.first[id] = nil
            }
            state.count -= 1
            return (value, state.endFilling())
        }
        if delivers { deliverReports() }
        return value
    }

    /// Delivers the reports due, one at a time, until none is: those of other threads too,
    /// made while this one delivered.
    private func deliverReports() {
        while let report = state.withLock({ $0.claimNextReport() }) {
            diagnostics(diagnostic(for: report))
        }
    }

    private func diagnostic(for report: Report) -> HTTPDiagnostic {
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
