/// One variant's figures in one cell, summarised over its rounds.
///
/// Every figure is a median over rounds, so one round disturbed by something else on the
/// machine does not move it; ratios are taken round by round against bare's figure in the
/// same round, then their median.
struct VariantSummary: Encodable, Sendable {
    /// The variant.
    let variant: ClientVariant
    /// Median requests per second.
    let requestsPerSecond: Double
    /// Median of the rounds' throughput / bare's throughput (1 = as fast as bare).
    let throughputRatioToBare: Double
    /// Median CPU time per request of the client process, in microseconds.
    let cpuMicrosecondsPerRequest: Double
    /// Median of the rounds' CPU time per request / bare's (1 = as cheap as bare).
    let cpuRatioToBare: Double
    /// Median context switches of the client process per request.
    let contextSwitchesPerRequest: Double
    /// Median allocations per request, `nil` when not counted.
    let allocationsPerRequest: Double?
    /// Median CPU time per request of the server child, in microseconds; `nil` where
    /// `/proc` cannot tell.
    let serverCPUMicrosecondsPerRequest: Double?
    /// The largest share of the machine's CPU that other processes used in a round: above a
    /// few percent, something else disturbed the measurement.
    let maximumOtherCPUShare: Double?
    /// Median time the observers took to catch up after the round, in milliseconds.
    let drainMilliseconds: Double
    /// Events dropped for the observers over the cell, warm-up included.
    let droppedEvents: Int
    /// Failed requests over every round.
    let failures: Int
    /// The first failure, when there was one.
    let firstFailure: String?
    /// Every round's raw figures.
    let rounds: [RoundSample]

    /// Summarises `samples` against `bare`, bare's samples of the same rounds in order.
    init(variant: ClientVariant, samples: [RoundSample], bare: [RoundSample], droppedEvents: Int, firstFailure: String?) {
        self.variant = variant
        requestsPerSecond = Self.median(samples.map(\.requestsPerSecond))
        throughputRatioToBare = Self.median(zip(samples, bare).map { $0.requestsPerSecond / $1.requestsPerSecond })
        cpuMicrosecondsPerRequest = Self.median(samples.map(\.cpuMicrosecondsPerRequest))
        cpuRatioToBare = Self.median(zip(samples, bare).map { $0.cpuMicrosecondsPerRequest / max($1.cpuMicrosecondsPerRequest, 1e-9) })
        contextSwitchesPerRequest = Self.median(samples.map(\.contextSwitchesPerRequest))
        allocationsPerRequest = Self.medianOfAll(samples.map(\.allocationsPerRequest))
        serverCPUMicrosecondsPerRequest = Self.medianOfAll(samples.map(\.serverCPUMicrosecondsPerRequest))
        maximumOtherCPUShare = Self.allOrNone(samples.map(\.otherCPUShare))?.max()
        drainMilliseconds = Self.median(samples.map { $0.drainSeconds * 1000 })
        self.droppedEvents = droppedEvents
        failures = samples.reduce(0) { $0 + $1.failures }
        self.firstFailure = firstFailure
        rounds = samples
    }

    /// The median of `values` when every one is known, else `nil`.
    static func medianOfAll(_ values: [Double?]) -> Double? {
        allOrNone(values).map(median)
    }

    /// `values` unwrapped when every one is known and there is one at least, else `nil`.
    static func allOrNone(_ values: [Double?]) -> [Double]? {
        let known = values.compactMap { $0 }
        return known.count == values.count && !known.isEmpty ? known : nil
    }

    /// The middle value (the mean of the two middle ones for an even count), 0 when empty.
    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return 0 }
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }
}
