extension DeliveryStateMachine {
    /// What the caller of an input must do, in this order: start the timers and sends, cancel
    /// the timers, report the diagnostics, then resume the flushes (so whoever a flush wakes
    /// sees the reports).
    struct Actions {
        /// A batch to send: build it from `items` unless `batch` was already built, send it,
        /// and report the outcome with ``DeliveryStateMachine/sendCompleted(_:outcome:batch:now:)``.
        struct Send {
            let flight: UInt64
            let items: [DeliveryBuffer.Item]
            let batch: (any Sendable)?
        }

        /// A timer to start: after `delay` nanoseconds, call
        /// ``DeliveryStateMachine/timerFired(_:now:)`` with `id`.
        struct Timer: Equatable {
            let id: UInt64
            let delay: UInt64
        }

        var sends: [Send] = []
        var timers: [Timer] = []
        var cancelledTimers: [UInt64] = []
        var diagnostics: [DeliveryDiagnostic] = []
        var resumedFlushes: [UInt64] = []
    }
}
