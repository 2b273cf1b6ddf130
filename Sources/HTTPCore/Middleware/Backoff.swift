import Foundation

/// Exponential backoff: how long to wait before each retry.
///
/// The ceiling before retry `n` (1 for the first retry) is `initial × 2^(n-1)`, capped at
/// `maximum`; the jitter then draws the wait below it, so clients that failed together do
/// not retry together.
///
/// ```swift
/// let backoff = Backoff(initial: 0.2, maximum: 10, jitter: .full)
/// let wait = backoff.delay(beforeRetry: 2)   // somewhere in 0...0.4 s
/// ```
public struct Backoff: Sendable, Hashable {
    /// How the wait is drawn below the ceiling.
    public enum Jitter: Sendable, Hashable {
        /// The ceiling itself, for tests and fixed schedules.
        case none
        /// Uniform in `ceiling/2 ... ceiling`: never much sooner than the schedule.
        case equal
        /// Uniform in `0 ... ceiling` ("full jitter"): spreads retries the most.
        case full
    }

    /// The ceiling before the first retry, in seconds.
    public var initial: TimeInterval
    /// The largest ceiling, in seconds.
    public var maximum: TimeInterval
    /// How the wait is drawn below the ceiling.
    public var jitter: Jitter

    /// Creates a backoff; negative or NaN settings count as 0 and infinite ones as a century,
    /// so no setting traps.
    public init(initial: TimeInterval = 0.2, maximum: TimeInterval = 10, jitter: Jitter = .full) {
        self.initial = initial
        self.maximum = maximum
        self.jitter = jitter
    }

    /// The most the wait before retry `retry` (1, 2, ...) can be.
    package func ceiling(beforeRetry retry: Int) -> TimeInterval {
        let century = 100 * 365 * 86_400.0
        let maximum = maximum.isNaN ? 0 : min(century, max(0, maximum))
        let doublings = retry > 1 ? Double(retry - 1) : 0
        let growing = initial * pow(2, doublings)
        guard !growing.isNaN else { return 0 }
        return max(0, min(maximum, growing))
    }

    /// The wait before retry `retry`, drawn with the system's random source below the ceiling
    /// (`jitter: .none` gives the ceiling itself, for a fixed schedule).
    ///
    /// - Parameter retry: Which retry the wait comes before: 1 for the first.
    /// - Returns: The wait in seconds, never negative.
    public func delay(beforeRetry retry: Int) -> TimeInterval {
        var random = SystemRandomNumberGenerator()
        return delay(beforeRetry: retry, using: &random)
    }

    /// The wait before retry `retry` (1, 2, ...), drawn with `random`.
    package func delay(beforeRetry retry: Int, using random: inout some RandomNumberGenerator) -> TimeInterval {
        let ceiling = ceiling(beforeRetry: retry)
        switch jitter {
        case .none: return ceiling
        case .equal: return ceiling / 2 + Double.random(in: 0...(ceiling / 2), using: &random)
        case .full: return Double.random(in: 0...ceiling, using: &random)
        }
    }
}
