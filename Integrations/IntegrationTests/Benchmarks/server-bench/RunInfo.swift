import Foundation

/// What a result depends on besides the code: when, how, and how busy the machine was.
struct RunInfo: Encodable, Sendable {
    /// When the run started, ISO 8601.
    let date: String
    /// `full` or `quick`.
    let mode: String
    /// `release` or `debug`.
    let configuration: String
    /// Cores the system reports; the server child and the client share them.
    let cores: Int
    /// The 1-minute load average when the run started (another build on a shared machine
    /// shows here), `nil` where `/proc/loadavg` is missing.
    let loadAverageAtStart: Double?
    /// The 1-minute load average when it ended.
    var loadAverageAtEnd: Double?
    /// The share of the machine's CPU capacity that processes other than the client and the
    /// server used over the run; `nil` where `/proc` cannot tell.
    var otherCPUShare: Double?
    /// How allocations were counted (``AllocationCounter/method``).
    let allocationCounting: String
    /// The whole run's wall time, in seconds.
    var durationSeconds: Double = 0

    /// The information at the start of a run.
    static func start(quick: Bool) -> RunInfo {
        #if DEBUG
        let configuration = "debug"
        #else
        let configuration = "release"
        #endif
        return RunInfo(
            date: ISO8601DateFormatter().string(from: Date()),
            mode: quick ? "quick" : "full",
            configuration: configuration,
            cores: ProcessInfo.processInfo.activeProcessorCount,
            loadAverageAtStart: loadAverage(),
            allocationCounting: AllocationCounter.method
        )
    }

    /// The 1-minute load average from `/proc/loadavg`, `nil` where it cannot be read.
    static func loadAverage() -> Double? {
        guard let text = try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8) else { return nil }
        return text.split(separator: " ").first.flatMap { Double($0) }
    }
}
