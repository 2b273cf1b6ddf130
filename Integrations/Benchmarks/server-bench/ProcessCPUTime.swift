#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The CPU time this whole process has used (every thread: the callers, AHC's event loops,
/// the dispatcher's delivery), from `getrusage(RUSAGE_SELF)`.
struct ProcessCPUTime: Sendable {
    /// User time, in microseconds.
    let userMicroseconds: Double
    /// System time, in microseconds.
    let systemMicroseconds: Double

    /// User plus system time, in microseconds.
    var totalMicroseconds: Double { userMicroseconds + systemMicroseconds }

    /// The time used so far.
    static func now() -> ProcessCPUTime {
        var usage = rusage()
        #if os(Linux)
        // Glibc imports RUSAGE_SELF as an enum case; getrusage takes its raw value.
        getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
        #else
        getrusage(RUSAGE_SELF, &usage)
        #endif
        return ProcessCPUTime(
            userMicroseconds: Double(usage.ru_utime.tv_sec) * 1e6 + Double(usage.ru_utime.tv_usec),
            systemMicroseconds: Double(usage.ru_stime.tv_sec) * 1e6 + Double(usage.ru_stime.tv_usec)
        )
    }

    /// The time used between `earlier` and this one.
    func since(_ earlier: ProcessCPUTime) -> ProcessCPUTime {
        ProcessCPUTime(
            userMicroseconds: userMicroseconds - earlier.userMicroseconds,
            systemMicroseconds: systemMicroseconds - earlier.systemMicroseconds
        )
    }
}
