/// What one variant did in one round: its requests, wall time, the process's CPU time and
/// allocations over the round.
struct RoundSample: Codable, Sendable {
    /// Requests made.
    let requests: Int
    /// Requests that failed.
    let failures: Int
    /// Wall time from the first request to the last response, in seconds.
    let seconds: Double
    /// Time the observers then took to handle the round's remaining events
    /// (`HTTPEventDispatcher.flush()`), in seconds; not part of ``seconds``.
    let drainSeconds: Double
    /// The process's user CPU time over the round and its drain, in microseconds.
    let cpuUserMicroseconds: Double
    /// The process's system CPU time over the round and its drain, in microseconds.
    let cpuSystemMicroseconds: Double
    /// The client process's context switches over the round and its drain.
    let contextSwitches: Int
    /// Allocations over the round and its drain, `nil` when they could not be counted.
    let allocations: Int?
    /// The server child's CPU time over the round and its drain, in microseconds (10 ms
    /// resolution); `nil` where `/proc` cannot tell.
    let serverCPUMicroseconds: Double?
    /// The CPU time every other process on the machine used over the round and its drain,
    /// in microseconds (10 ms resolution): a build running alongside shows here.
    let otherCPUMicroseconds: Double?
    /// The cores of the machine, which ``otherCPUShare`` divides by.
    let cores: Int

    /// Requests per second of wall time.
    var requestsPerSecond: Double { Double(requests) / max(seconds, 1e-9) }
    /// User plus system CPU time per request, in microseconds.
    var cpuMicrosecondsPerRequest: Double { (cpuUserMicroseconds + cpuSystemMicroseconds) / Double(max(requests, 1)) }
    /// The server's CPU time per request, in microseconds.
    var serverCPUMicrosecondsPerRequest: Double? { serverCPUMicroseconds.map { $0 / Double(max(requests, 1)) } }
    /// The share of the machine's CPU capacity that other processes used over the round
    /// (0.5 = one of two cores busy with something else).
    var otherCPUShare: Double? { otherCPUMicroseconds.map { $0 / ((seconds + drainSeconds) * 1e6 * Double(max(cores, 1))) } }
    /// Context switches of the client process per request.
    var contextSwitchesPerRequest: Double { Double(contextSwitches) / Double(max(requests, 1)) }
    /// Allocations per request, `nil` when not counted.
    var allocationsPerRequest: Double? { allocations.map { Double($0) / Double(max(requests, 1)) } }
}
