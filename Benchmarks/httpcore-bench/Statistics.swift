import Dispatch

/// A monotonic timestamp in nanoseconds, for timing single calls and whole runs.
@inline(__always)
func nowNanoseconds() -> UInt64 {
    DispatchTime.now().uptimeNanoseconds
}

/// Seconds elapsed since `start`, a value of ``nowNanoseconds()``.
func secondsSince(_ start: UInt64) -> Double {
    Double(nowNanoseconds() &- start) / 1e9
}

/// Summary statistics of a set of samples (nanoseconds, seconds, anything numeric).
struct SampleSummary: Sendable {
    let count: Int
    let mean: Double
    let p50: Double
    let p90: Double
    let p99: Double
    let max: Double

    /// Summarises `samples`; all zero when there are none.
    init(_ samples: [Double]) {
        let sorted = samples.sorted()
        count = sorted.count
        mean = sorted.isEmpty ? 0 : sorted.reduce(0, +) / Double(sorted.count)
        p50 = Self.percentile(sorted, 0.50)
        p90 = Self.percentile(sorted, 0.90)
        p99 = Self.percentile(sorted, 0.99)
        max = sorted.last ?? 0
    }

    /// The nearest-rank percentile of already sorted samples.
    private static func percentile(_ sorted: [Double], _ fraction: Double) -> Double {
        guard !sorted.isEmpty else { return 0 }
        let rank = Int((fraction * Double(sorted.count)).rounded(.up)) - 1
        return sorted[min(sorted.count - 1, Swift.max(0, rank))]
    }
}

/// The median of `values`, 0 when empty; used to pick the typical round out of several.
func median(_ values: [Double]) -> Double {
    SampleSummary(values).p50
}

/// Consumes a value so the optimizer cannot drop the computation that produced it.
@inline(never)
func blackHole<Value>(_ value: Value) {
    withExtendedLifetime(value) {}
}
