import Foundation

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
/// The same request value may be sent again before its first exchange ended: the exchanges of
/// one id are taken first in, first out. Keeping and taking the first exchange of an id
/// allocates nothing once the table has grown. Thread-safe: one lock, held for a dictionary
/// access, and for a report when the table fills or has room again.
public final class HTTPExchangeTable<Value: Sendable>: @unchecked Sendable {   // safe: `state` is touched only under `lock`
    /// The most exchanges kept at once.
    public let limit: Int
    /// The name reports give as their source: the observer's type.
    public let owner: String
    private let diagnostics: @Sendable (HTTPDiagnostic) -> Void
    private let lock = NSLock()
    private var state = State()

    private struct State {
        /// The value of each id's first exchange in flight.
        var first: [HTTPRequest.ID: Value] = [:]
        /// The values of later exchanges of an id already in flight, first in, first out.
        var later: [HTTPRequest.ID: [Value]] = [:]
        var count = 0
        var untracked = 0
        /// Exchanges refused since the table last had room: non-zero while it is full and
        /// reported so.
        var refusedWhileFull = 0
    }

    /// A table of at most `limit` (at least 0) exchanges, reporting as `owner` to
    /// `diagnostics`, ``HTTPDiagnostics/report(_:)`` by default.
    public init(
        limit: Int, owner: String, diagnostics: @escaping @Sendable (HTTPDiagnostic) -> Void = { HTTPDiagnostics.report($0) }
    ) {
        self.limit = max(0, limit)
        self.owner = owner
        self.diagnostics = diagnostics
    }

    /// How many exchanges were refused because ``limit`` others were kept.
    public var untrackedCount: Int {
        lock.lock()
        defer { lock.unlock() }
        return state.untracked
    }

    /// How many exchanges are kept now.
    public var count: Int {
        lock.lock()
        defer { lock.unlock() }
        return state.count
    }

    /// Keeps `value` for exchange `id` until ``take(for:)``; `false`, and the exchange
    /// counted, when ``limit`` exchanges are kept already.
    @discardableResult
    public func keep(_ value: Value, for id: HTTPRequest.ID) -> Bool {
        lock.lock()
        guard state.count < limit else {
            state.untracked += 1
            state.refusedWhileFull += 1
            // Reported under the lock, so the warning and the notice after it arrive in order;
            // once per time the table fills, not once per exchange.
            if state.refusedWhileFull == 1 { reportFull() }
            lock.unlock()
            return false
        }
        state.count += 1
        if state.first[id] == nil {
            state.first[id] = value
        } else {
            state.later[id, default: []].append(value)
        }
        lock.unlock()
        return true
    }

    /// The value kept for exchange `id`, forgotten now; `nil` when none was kept (refused, or
    /// created before the observer subscribed).
    public func take(for id: HTTPRequest.ID) -> Value? {
        lock.lock()
        guard let value = state.first[id] else {
            lock.unlock()
            return nil
        }
        if var later = state.later[id], !later.isEmpty {
            state.first[id] = later.removeFirst()
            state.later[id] = later.isEmpty ? nil : later
        } else {
            state.first[id] = nil
        }
        state.count -= 1
        if state.refusedWhileFull > 0 {
            reportRoom(afterRefusing: state.refusedWhileFull)
            state.refusedWhileFull = 0
        }
        lock.unlock()
        return value
    }

    private func reportFull() {
        diagnostics(HTTPDiagnostic(
            source: owner, level: .warning,
            message: "\(limit) exchanges in flight are kept already; exchanges created until one ends are not. "
                + "If fewer are in flight, terminal events were missed: a subscription cancelled while exchanges were in flight",
            metadata: ["limit": String(limit)]
        ))
    }

    private func reportRoom(afterRefusing refused: Int) {
        diagnostics(HTTPDiagnostic(
            source: owner, level: .notice,
            message: "exchanges in flight are kept again; \(refused) created while \(limit) were kept were not",
            metadata: ["limit": String(limit), "untracked": String(refused)]
        ))
    }
}
