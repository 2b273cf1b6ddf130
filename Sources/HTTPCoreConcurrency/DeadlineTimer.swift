import Foundation

/// Something ``DeadlineTimer`` ends when its deadline passes.
protocol DeadlineExpiring: AnyObject, Sendable {
    /// Called once, on a Dispatch queue, when the deadline passed.
    func expire()
}

/// The one Dispatch timer behind every ``withDeadline(seconds:_:)`` call: the pending deadlines
/// sit in a table, and the timer is set for the earliest.
///
/// Adding a deadline costs a table entry under a lock (the timer is rescheduled only when the
/// new deadline is the earliest), removing one costs a lookup; neither allocates once the
/// table has grown. The timer is not rescheduled when the earliest is removed: firing for a
/// deadline that is gone finds nothing expired and sets the timer for the next one.
package final class DeadlineTimer: Sendable {
    /// The timer of every deadline in the process.
    package static let shared = DeadlineTimer()

    private struct Entry {
        let uptimeNanoseconds: UInt64
        let owner: any DeadlineExpiring
    }

    private struct Schedule {
        let timer: any DispatchSourceTimer
        var pending: [UInt64: Entry] = [:]
        var lastID: UInt64 = 0
        /// When the timer fires next, in uptime nanoseconds; `.max` when it is idle.
        var firesAt = UInt64.max
    }

    // Guards the pending deadlines and the timer's scheduling.
    private let schedule: Locked<Schedule>

    private init() {
        let timer = DispatchSource.makeTimerSource(queue: .global())
        schedule = Locked(Schedule(timer: timer))
        timer.setEventHandler { [weak self] in self?.fire() }
        timer.activate()
    }

    /// How many deadlines are pending: added and neither removed nor expired.
    package var pendingCount: Int { schedule.withLock { $0.pending.count } }

    /// Calls `owner.expire()` at `deadline`, unless ``remove(_:)`` is called with the returned
    /// identifier first.
    func add(_ owner: any DeadlineExpiring, at deadline: DispatchTime) -> UInt64 {
        schedule.withLock { schedule in
            schedule.lastID += 1
            schedule.pending[schedule.lastID] = Entry(uptimeNanoseconds: deadline.uptimeNanoseconds, owner: owner)
            if deadline.uptimeNanoseconds < schedule.firesAt {
                schedule.firesAt = deadline.uptimeNanoseconds
                schedule.timer.schedule(deadline: deadline)
            }
            return schedule.lastID
        }
    }

    /// Forgets the deadline `id`; nothing happens if it already expired.
    func remove(_ id: UInt64) {
        schedule.withLock { _ = $0.pending.removeValue(forKey: id) }
    }

    private func fire() {
        let now = MonotonicClock.nanoseconds()
        let expired = schedule.withLock { schedule -> [any DeadlineExpiring] in
            var expired: [any DeadlineExpiring] = []
            var next = UInt64.max
            for (id, entry) in schedule.pending {
                if entry.uptimeNanoseconds <= now {
                    expired.append(entry.owner)
                    schedule.pending[id] = nil
                } else {
                    next = min(next, entry.uptimeNanoseconds)
                }
            }
            schedule.firesAt = next
            if next != .max { schedule.timer.schedule(deadline: DispatchTime(uptimeNanoseconds: next)) }
            return expired
        }
        for owner in expired { owner.expire() }
    }
}
