import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The process's resident memory, read the cheapest way each platform offers: for the
/// benchmarks' memory figures.
public enum ResidentMemory {
    /// Resident memory now, in bytes; on Apple platforms the peak so far (`ru_maxrss`),
    /// which is what a baseline taken before the measured work needs.
    public static func current() -> Int? {
        #if os(Linux)
        statusField("VmRSS")
        #else
        maximumResidentSetSize()
        #endif
    }

    /// The peak resident memory of the process so far, in bytes.
    public static func peak() -> Int? {
        #if os(Linux)
        statusField("VmHWM")
        #else
        maximumResidentSetSize()
        #endif
    }

    #if os(Linux)
    /// A `kB` field of `/proc/self/status`, in bytes.
    private static func statusField(_ name: String) -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
        for line in status.split(separator: "\n") where line.hasPrefix(name + ":") {
            let digits = line.dropFirst(name.count + 1).filter(\.isNumber)
            return Int(digits).map { $0 * 1024 }
        }
        return nil
    }
    #else
    /// `ru_maxrss`, which Apple platforms report in bytes.
    private static func maximumResidentSetSize() -> Int? {
        var usage = rusage()
        guard getrusage(RUSAGE_SELF, &usage) == 0 else { return nil }
        return Int(usage.ru_maxrss)
    }
    #endif
}
