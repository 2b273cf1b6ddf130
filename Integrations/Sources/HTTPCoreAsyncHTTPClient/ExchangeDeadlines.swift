import NIOConcurrencyHelpers
import NIOCore

/// Ends the exchanges whose deadline passed, with one NIO timer for all of them instead of one
/// per exchange.
///
/// A timer scheduled on an event loop from another thread (as AHC schedules one for each
/// request given a deadline) costs about five allocations and a wake-up of that loop, so per
/// request it would cost more than the rest of the transport. Here an exchange watched adds an
/// entry to a table under a lock; the one timer is armed for the earliest deadline in the table
/// and, when it fires, tells the exchanges whose deadline passed and re-arms for the earliest
/// left. With one timeout for every request the timer is rearmed about once per timeout, not
/// once per request. An exchange that ends first removes its entry; none is ended late, none
/// early.
final class ExchangeDeadlines: Sendable {
    /// What this can end: an exchange under way.
    protocol Exchange: Sendable {
        /// Its deadline passed: end it as timed out.
        func deadlinePassed()
    }

    /// What an exchange is watched under; gives it back with ``unwatch(_:)``.
    struct Ticket: Sendable {
        fileprivate let key: Int
    }

    private struct Watched {
        let deadline: NIODeadline
        let exchange: any Exchange
    }

    private struct State {
        var watched: [Int: Watched] = [:]
        var nextKey = 0
        /// The timer scheduled, when it fires, and which one it is.
        var armed: (at: NIODeadline, generation: Int, timer: Scheduled<Void>)?
        /// How many timers were scheduled; each one's generation.
        var generation = 0
    }

    private let eventLoop: any EventLoop
    private let state = NIOLockedValueBox(State())

    /// A table whose timer runs on `eventLoop`, and tells the time by its clock.
    init(on eventLoop: any EventLoop) {
        self.eventLoop = eventLoop
    }

    /// Ends `exchange` at `deadline` unless ``unwatch(_:)`` comes first.
    func watch(_ exchange: any Exchange, until deadline: NIODeadline) -> Ticket {
        let (ticket, replaced) = state.withLockedValue { state -> (Ticket, Scheduled<Void>?) in
            let key = state.nextKey
            state.nextKey &+= 1
            state.watched[key] = Watched(deadline: deadline, exchange: exchange)
            if let armed = state.armed, armed.at <= deadline { return (Ticket(key: key), nil) }
            let replaced = state.armed?.timer
            arm(&state, at: deadline)
            return (Ticket(key: key), replaced)
        }
        replaced?.cancel()
        return ticket
    }

    /// Stops watching; `false` when the deadline passed first and the exchange was ended.
    @discardableResult
    func unwatch(_ ticket: Ticket) -> Bool {
        state.withLockedValue { $0.watched.removeValue(forKey: ticket.key) != nil }
    }

    /// How many exchanges are watched: for tests.
    var watchedCount: Int {
        state.withLockedValue { $0.watched.count }
    }

    /// How many timers were scheduled so far: for tests.
    var timersScheduled: Int {
        state.withLockedValue { $0.generation }
    }

    private func arm(_ state: inout State, at deadline: NIODeadline) {
        state.generation &+= 1
        let generation = state.generation
        state.armed = (deadline, generation, eventLoop.scheduleTask(deadline: deadline) { [self] in sweep(firing: generation) })
    }

    /// Ends every exchange whose deadline passed and arms the timer for the earliest left.
    private func sweep(firing generation: Int) {
        let now = eventLoop.now
        let (expired, previous) = state.withLockedValue { state -> ([any Exchange], Scheduled<Void>?) in
            let expired = state.watched.values.filter { $0.deadline <= now }.map(\.exchange)
            state.watched = state.watched.filter { $0.value.deadline > now }
            // A `watch` may have armed another timer while this one fired.
            let previous = state.armed.flatMap { $0.generation == generation ? nil : $0.timer }
            state.armed = nil
            if let earliest = state.watched.values.map(\.deadline).min() { arm(&state, at: earliest) }
            return (expired, previous)
        }
        previous?.cancel()
        expired.forEach { $0.deadlinePassed() }
    }
}
