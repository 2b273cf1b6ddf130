import Foundation

/// CPU time as Linux's `/proc` tells it, in clock ticks (10 ms): the whole machine's busy time
/// and one process's, so a report can say how much of the machine something else used while
/// it measured. `nil` where `/proc` is missing (macOS) or unreadable.
enum ProcStat {
    /// Microseconds per clock tick of `/proc`'s figures.
    private static let microsecondsPerTick = 1e6 / Double(sysconf(Int32(_SC_CLK_TCK)))

    /// The time every core of the machine spent busy since boot (user, nice, system, irq,
    /// softirq, steal: all but idle and iowait), in microseconds.
    static func machineBusyMicroseconds() -> Double? {
        guard let text = try? String(contentsOfFile: "/proc/stat", encoding: .utf8),
              let line = text.split(separator: "\n").first(where: { $0.hasPrefix("cpu ") })
        else { return nil }
        let ticks = line.split(separator: " ").dropFirst().compactMap { Double($0) }
        guard ticks.count >= 8 else { return nil }
        let busy = ticks[0] + ticks[1] + ticks[2] + ticks[5] + ticks[6] + ticks[7]
        return busy * microsecondsPerTick
    }

    /// The user plus system time process `pid` used, in microseconds.
    static func processMicroseconds(pid: Int32) -> Double? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let end = text.lastIndex(of: ")")
        else { return nil }
        // The fields after the command name (which may hold spaces), from field 3 (state):
        // utime and stime are fields 14 and 15.
        let fields = text[text.index(after: end)...].split(separator: " ")
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
        return (user + system) * microsecondsPerTick
    }
}
