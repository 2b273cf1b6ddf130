/// The deadline timers of ``withDeadline(seconds:_:)`` calls not yet decided, for tests to
/// check that none outlives its call.
///
/// Costs two uncontended lock round trips per call.
package enum DeadlineTimers {
    // Guards the count of armed timers, shared by every call.
    private static let count = Locked(0)

    /// How many deadline timers are armed now.
    package static var outstanding: Int { count.withLock { $0 } }

    /// Counts a timer ``DeadlineRace`` scheduled.
    static func armed() { count.withLock { $0 += 1 } }

    /// Counts a timer ``DeadlineRace`` cancelled.
    static func disarmed() { count.withLock { $0 -= 1 } }
}
