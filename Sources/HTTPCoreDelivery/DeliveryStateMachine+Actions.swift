extension DeliveryStateMachine {
    /// What the caller of an input must do, in this order: start the timers, sends and build,
    /// cancel the timers, report the diagnostics, then resume the flushes (so whoever a flush
    /// wakes sees the reports); and release the evicted items outside its lock.
    struct Actions {
        /// A batch to send: build it from `items` unless `batch` was already built, send it,
        /// and report the outcome with ``DeliveryStateMachine/sendCompleted(_:outcome:batch:now:)``.
        struct Send {
            let flight: UInt64
            let items: [DeliveryBuffer.Item]
            let batch: (any Sendable)?
        }

        /// A batch to build ahead from `items`, beside the sends under way: report it with
        /// ``DeliveryStateMachine/batchBuilt(_:batch:now:)``.
        struct Build {
            let id: UInt64
            let items: [DeliveryBuffer.Item]
        }

        /// A timer to start: after `delay` nanoseconds, call
        /// ``DeliveryStateMachine/timerFired(_:now:)`` with `id`.
        struct Timer: Equatable {
            let id: UInt64
            let delay: UInt64
        }

        var sends: [Send] = []
        /// At most one build at a time.
        var build: Build?
        var timers: [Timer] = []
        var cancelledTimers: [UInt64] = []
        var diagnostics: [DeliveryDiagnostic] = []
        var resumedFlushes: [UInt64] = []
        /// Items dropped from the buffer to make room: release them after the lock that guards
        /// the machine, the last of these actions.
        var evicted = DeliveryBuffer.Evicted()
    }
}
