import Foundation

/// A point in time read from both clocks: the wall clock for events, the monotonic clock
/// (``MonotonicClock``) for durations and deadlines.
package struct Moment: Sendable {
    package let date: Date
    package let uptimeNanoseconds: UInt64

    package static func now() -> Moment {
        Moment(date: Date(), uptimeNanoseconds: MonotonicClock.nanoseconds())
    }

    /// The monotonic time `seconds` after this moment; any `seconds` is accepted (negative
    /// and NaN count as 0, huge and infinite values as a century).
    package func deadline(after seconds: TimeInterval) -> DispatchTime {
        DispatchTime(uptimeNanoseconds: uptimeNanoseconds &+ Self.nanoseconds(seconds))
    }

    /// The end of what started at this moment: the wall-clock end and the monotonic duration.
    package func ended() -> (date: Date, durationMilliseconds: Double) {
        let elapsed = Double(MonotonicClock.nanoseconds() &- uptimeNanoseconds) / 1_000_000
        return (date.addingTimeInterval(elapsed / 1000), elapsed)
    }

    /// Whole nanoseconds in `seconds`, clamped to 0 ... 100 years.
    package static func nanoseconds(_ seconds: TimeInterval) -> UInt64 {
        let century = 100 * 365 * 86_400.0
        guard seconds > 0 else { return 0 }
        return UInt64(min(seconds, century) * 1_000_000_000)
    }
}
