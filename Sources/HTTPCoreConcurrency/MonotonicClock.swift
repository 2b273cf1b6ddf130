import Dispatch

/// The package's one monotonic clock: every duration, deadline and message gap is read from
/// it, so they all count the same nanoseconds (`DispatchTime`'s, which deadlines are given in).
///
/// Where a test moves time, the clock is injected as a function that defaults to this one
/// (`DeliveryConfiguration.uptimeNanoseconds`), never read beside it.
package enum MonotonicClock {
    /// Nanoseconds since an arbitrary point fixed at boot, as `DispatchTime.uptimeNanoseconds`
    /// counts them: never going back, not counting time asleep on Apple platforms.
    @inlinable
    package static func nanoseconds() -> UInt64 {
        DispatchTime.now().uptimeNanoseconds
    }
}
