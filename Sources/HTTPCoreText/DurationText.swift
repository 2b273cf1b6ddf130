import Foundation

/// Durations as people read them in log lines and failure messages: `45 µs`, `0.9 ms`,
/// `124 ms`, `2.0 s`.
package enum DurationText {
    /// `milliseconds` in the unit that suits it: whole microseconds below 0.1 ms,
    /// milliseconds below a second (one decimal below 10 ms), seconds with one decimal above.
    /// Negative, infinite and NaN durations read as `0 µs`.
    package static func format(milliseconds: Double) -> String {
        guard milliseconds.isFinite, milliseconds > 0 else { return "0 µs" }
        let microseconds = (milliseconds * 1000).rounded()
        if microseconds < 100 { return "\(Int(microseconds)) µs" }
        if milliseconds < 9.95 { return String(format: "%.1f ms", milliseconds) }
        if milliseconds < 999.5 { return "\(Int(milliseconds.rounded())) ms" }
        return String(format: "%.1f s", milliseconds / 1000)
    }
}
