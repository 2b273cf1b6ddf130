import NIOConcurrencyHelpers
import NIOCore

/// Ends the exchanges whose deadline passed, and checks on the ones still under way a moment
/// after they began, with one NIO timer for all of them instead of one per exchange.
///
/// A timer scheduled on an event loop from another thread (as AHC schedules one for each
/// request given a deadline) costs about five allocations and a wake-up of that loop, so per
/// request it would cost more than the rest of the transport. Here an exchange watched adds an
/// entry to a table under a lock; the one timer is armed for the earliest time due in the table
/// and, when it fires, tells the exchanges that are due and re-arms for the earliest left. An
/// exchange that ends first removes its entry; none is told late, none early.
///
/// Each entry is due twice at most: at its start check (``Exchange/startCheckDue()``), a
/// moment after the exchange began, and at its deadline (``Exchange/deadlinePassed()``). With
/// exchanges under way the timer fires about once per start-check delay, whatever the rate.
final class ExchangeDeadlines: Sendable {
    /// What this can end: an exchange under way.
    protocol Exchange: Sendable {
        /// Its deadline passed: end it as timed out.
        func deadlinePassed()
        /// Its start check is due: it has been under way since the check was set.
        func startCheckDue()
    }

    /// What an exchange is watched under; gives it back with ``unwatch(_:)``.
    struct Ticket: Sendable {
        fileprivate let key: Int
    }

    private struct Watched {
        /// When the exchange is timed out; `.distantFuture` for never.
        let deadline: NIODeadline
        /// When its start check is due; `nil` once told, or when none was asked for.
        var startCheck: NIODeadline?
        let exchange: any Exchange

        /// The next time this entry is due.
        var due: NIODeadline { startCheck.map { min($0, deadline) } ?? deadline }
    }

    private struct State {
        var watched: [Int: Watched] = [:]
        var nextKey = 0
        /// The timer scheduled, when it fires, and which one it is.
        var armed: (at: NIODeadline, generation: Int, timer: Scheduled<Void>)?
        /// How many timers were scheduled; each one's generation.
        var generation = 0
    }

    /// How long an exchange runs before its start check is due, unless a table is made with
    /// another delay.
    static let defaultStartCheckDelay = TimeAmount.milliseconds(50)

    /// How long an exchange runs before its start check is due (see
    /// ``Exchange/startCheckDue()``).
    let startCheckDelay: TimeAmount
    private let eventLoop: any EventLoop
    private let state = NIOLockedValueBox(State())

    /// A table whose timer runs on `eventLoop`, and tells the time by its clock; its exchanges'
    /// start checks are due `startCheckDelay` after they begin.
    init(on eventLoop: any EventLoop, startCheckDelay: TimeAmount = defaultStartCheckDelay) {
        self.eventLoop = eventLoop
        self.startCheckDelay = startCheckDelay
    }

    /// Ends `exchange` at `deadline` (`nil` for never), and tells it at `startCheck` (`nil` for
    /// no check) that it is still watched, unless ``unwatch(_:)`` comes first.
    func watch(_ exchange: any Exchange, until deadline: NIODeadline?, checkingStartAt startCheck: NIODeadline? = nil) -> Ticket {
        let entry = Watched(deadline: deadline ?? .distantFuture, startCheck: startCheck, exchange: exchange)
        let (ticket, replaced) = state.withLockedValue { state -> (Ticket, Scheduled<Void>?) in
            let key = state.nextKey
            state.nextKey &+= 1
            state.watched[key] = entry
            let due = entry.due
            if due == .distantFuture { return (Ticket(key: key), nil) }
            if let armed = state.armed, armed.at <= due { return (Ticket(key: key), nil) }
            let replaced = state.armed?.timer
            arm(&state, at: due)
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

    /// Ends every exchange whose deadline passed, tells those whose start check is due, and arms
    /// the timer for the earliest time left. An entry with no deadline leaves the table once
    /// its check was told.
    private func sweep(firing generation: Int) {
        let now = eventLoop.now
        let (expired, checked, previous) = state.withLockedValue { state -> ([any Exchange], [any Exchange], Scheduled<Void>?) in
            var expired: [any Exchange] = []
            var checked: [any Exchange] = []
            for key in state.watched.keys where state.watched[key]!.due <= now {
                var entry = state.watched[key]!
                if entry.deadline <= now {
                    expired.append(entry.exchange)
                    state.watched[key] = nil
                    continue
                }
                checked.append(entry.exchange)
                entry.startCheck = nil
                state.watched[key] = entry.deadline == .distantFuture ? nil : entry
            }
            // A `watch` may have armed another timer while this one fired.
            let previous = state.armed.flatMap { $0.generation == generation ? nil : $0.timer }
            state.armed = nil
            if let earliest = state.watched.values.map(\.due).min(), earliest != .distantFuture { arm(&state, at: earliest) }
            return (expired, checked, previous)
        }
        previous?.cancel()
        expired.forEach { $0.deadlinePassed() }
        checked.forEach { $0.startCheckDue() }
    }
}
