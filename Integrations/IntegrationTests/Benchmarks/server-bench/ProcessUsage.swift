#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The CPU time this whole process has used (every thread: the callers, AHC's event loops,
/// the dispatcher's delivery), and how often its threads were switched out, from
/// `getrusage(RUSAGE_SELF)`.
struct ProcessUsage: Sendable {
    /// User time, in microseconds.
    let userMicroseconds: Double
    /// System time, in microseconds.
    let systemMicroseconds: Double
    /// Context switches of every thread, voluntary (a thread waited) and involuntary (the
    /// scheduler preempted it): each is a wake-up or a preemption the work cost.
    let contextSwitches: Int

    /// User plus system time, in microseconds.
    var totalMicroseconds: Double { userMicroseconds + systemMicroseconds }

    /// The time used so far.
    static func now() -> ProcessUsage {
        var usage = rusage()
        #if os(Linux)
        // Glibc imports RUSAGE_SELF as an enum case; getrusage takes its raw value.
        getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
        #else
        getrusage(RUSAGE_SELF, &usage)
        #endif
        return ProcessUsage(
            userMicroseconds: Double(usage.ru_utime.tv_sec) * 1e6 + Double(usage.ru_utime.tv_usec),
            systemMicroseconds: Double(usage.ru_stime.tv_sec) * 1e6 + Double(usage.ru_stime.tv_usec),
            contextSwitches: usage.ru_nvcsw + usage.ru_nivcsw
        )
    }

    /// The time used between `earlier` and this one.
    func since(_ earlier: ProcessUsage) -> ProcessUsage {
        ProcessUsage(
            userMicroseconds: userMicroseconds - earlier.userMicroseconds,
            systemMicroseconds: systemMicroseconds - earlier.systemMicroseconds,
            contextSwitches: contextSwitches - earlier.contextSwitches
        )
    }
}
