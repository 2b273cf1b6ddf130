#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A known amount of CPU work on the calling thread: what the calibration variants add to
/// each of bare AsyncHTTPClient's requests, to show what a given cost per request does to
/// the throughput ratio on this machine.
enum AddedCPU {
    /// Keeps the calling thread busy until it has used `microseconds` of CPU time (its own
    /// `CLOCK_THREAD_CPUTIME_ID`), so a preemption in the middle does not shorten the work.
    static func spin(microseconds: Int) {
        let start = threadNanoseconds()
        let end = start + UInt64(microseconds) * 1_000
        while threadNanoseconds() < end {}
    }

    /// The CPU time the calling thread has used, in nanoseconds.
    private static func threadNanoseconds() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }
}
