import Foundation
import HTTPCoreText

/// The phases of one HAR entry, in whole microseconds, derived from what events report.
///
/// Transports report only a complete response, so the phases are coarse: `blocked` is the
/// time before the described attempt started (earlier attempts, retry delays, middlewares),
/// `wait` runs from the attempt's start to its response (sending and downloading included),
/// `receive` from the response to the end of the exchange, and `send` is 0. Their sum is
/// exactly ``total``, the exchange's duration on the monotonic clock, as HAR requires of
/// `time`; `wait` is the attempt's own monotonic duration, and a wall-clock attempt start
/// that disagrees with the exchange's (a clock step) is clamped into it.
struct HARTimings: Sendable, Hashable {
    /// Time before the described attempt started; `nil` (HAR's -1) when it started at once.
    let blocked: Int?
    /// Always 0: transports do not report when sending ended.
    let send: Int
    /// From the attempt's start to its response or failure; to the end of the exchange when
    /// the attempt's duration is unknown.
    let wait: Int
    /// From the response to the end of the exchange.
    let receive: Int

    /// The sum of the phases: the entry's `time`.
    var total: Int { (blocked ?? 0) + send + wait + receive }

    /// The phases of an exchange (or attempt) that started at `start` and lasted
    /// `durationMilliseconds`, whose described attempt started at `attemptStart` and lasted
    /// `attemptDurationMilliseconds`, when known.
    init(start: Date, durationMilliseconds: Double, attemptStart: Date?, attemptDurationMilliseconds: Double?) {
        let total = Self.microseconds(milliseconds: durationMilliseconds)
        let gap = attemptStart.map { min(Self.microseconds(in: $0.timeIntervalSince(start)), total) } ?? 0
        let afterStart = total - gap
        let waited = attemptDurationMilliseconds.map { min(Self.microseconds(milliseconds: $0), afterStart) }
        blocked = gap > 0 ? gap : nil
        send = 0
        wait = waited ?? afterStart
        receive = afterStart - wait
    }

    /// Whole microseconds in an interval, 0 for negative or NaN ones, at most a century.
    private static func microseconds(in seconds: TimeInterval) -> Int {
        guard seconds > 0 else { return 0 }
        return Int((min(seconds, century) * 1_000_000).rounded())
    }

    /// Whole microseconds in a duration in milliseconds, like ``microseconds(in:)``.
    private static func microseconds(milliseconds: Double) -> Int {
        guard milliseconds > 0 else { return 0 }
        return Int((min(milliseconds, century * 1000) * 1000).rounded())
    }

    private static let century: TimeInterval = 100 * 365 * 86_400
}

extension HARTimings {
    /// The HAR `timings` object, in milliseconds; phases that do not apply are -1.
    var json: JSONValue {
        [
            "blocked": .thousandths(blocked ?? -1000),
            "dns": -1,
            "connect": -1,
            "send": .thousandths(send),
            "wait": .thousandths(wait),
            "receive": .thousandths(receive),
            "ssl": -1,
        ]
    }
}
