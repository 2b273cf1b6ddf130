import NIOConcurrencyHelpers
import NIOCore

/// Cancels the tasks that read response bodies once their exchange's deadline passes, with one
/// NIO timer for all of them instead of one per exchange.
///
/// AHC's async API holds a request's deadline only until the response head arrives; the body
/// is read afterwards by a task of the transport's, and this bounds it. A timer scheduled on an
/// event loop from another thread costs about five allocations and a wake-up of that loop, so
/// per request it would cost more than the rest of the transport. Here a body watched adds an
/// entry to a table under a lock; the one timer is armed for the earliest deadline in the table
/// and, when it fires, cancels the tasks whose deadline passed and re-arms for the earliest
/// left. With one timeout for every request the timer is rearmed about once per timeout, not
/// once per request. A body that ends first removes its entry; none is cancelled late, none
/// early.
final class BodyDeadlines: Sendable {
    /// A task this can stop: a body's reader.
    protocol Reader: Sendable {
        func cancel()
    }

    /// What a reader is watched under; gives it back with ``unwatch(_:)``.
    struct Ticket: Sendable {
        fileprivate let key: Int
    }

    private struct Watched {
        let deadline: NIODeadline
        let reader: any Reader
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

    /// Cancels `reader` at `deadline` unless ``unwatch(_:)`` comes first.
    func watch(_ reader: any Reader, until deadline: NIODeadline) -> Ticket {
        let (ticket, replaced) = state.withLockedValue { state -> (Ticket, Scheduled<Void>?) in
            let key = state.nextKey
            state.nextKey &+= 1
            state.watched[key] = Watched(deadline: deadline, reader: reader)
            if let armed = state.armed, armed.at <= deadline { return (Ticket(key: key), nil) }
            let replaced = state.armed?.timer
            arm(&state, at: deadline)
            return (Ticket(key: key), replaced)
        }
        replaced?.cancel()
        return ticket
    }

    /// Stops watching; `false` when the deadline passed first and the reader was cancelled.
    @discardableResult
    func unwatch(_ ticket: Ticket) -> Bool {
        state.withLockedValue { $0.watched.removeValue(forKey: ticket.key) != nil }
    }

    /// How many readers are watched: for tests.
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

    /// Cancels every reader whose deadline passed and arms the timer for the earliest left.
    private func sweep(firing generation: Int) {
        let now = eventLoop.now
        let (expired, previous) = state.withLockedValue { state -> ([any Reader], Scheduled<Void>?) in
            let expired = state.watched.values.filter { $0.deadline <= now }.map(\.reader)
            state.watched = state.watched.filter { $0.value.deadline > now }
            // A `watch` may have armed another timer while this one fired.
            let previous = state.armed.flatMap { $0.generation == generation ? nil : $0.timer }
            state.armed = nil
            if let earliest = state.watched.values.map(\.deadline).min() { arm(&state, at: earliest) }
            return (expired, previous)
        }
        previous?.cancel()
        expired.forEach { $0.cancel() }
    }
}

extension Task: BodyDeadlines.Reader {}
