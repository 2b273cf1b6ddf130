/// What a ``DeliveryQueue`` guards with its lock: the state machine, and the handles of the
/// timers and flushes its actions started. Not generic, so the code that runs on every
/// enqueue is compiled concrete in this module.
struct DeliveryQueueState {
    var machine: DeliveryStateMachine
    /// Running timers by id, cancelled when the machine says so.
    var timers: [UInt64: Task<Void, Never>] = [:]
    /// Suspended ``DeliveryQueue/flush()`` calls by waiter id.
    var flushes: [UInt64: CheckedContinuation<Void, Never>] = [:]

    /// Reports and flush resumptions waiting to be delivered, in the order the machine made
    /// them; see ``DeliveryQueue``'s `deliverOutbox()`.
    var outbox: [DeliveryQueueOutboxEntry] = []
    /// Set while one thread delivers the outbox; others leave their entries to it.
    var isDeliveringOutbox = false

    /// Starts and cancels the timers of `actions` (under the lock, so a timer is registered
    /// before it can fire), puts its reports and resumed flushes in the outbox, and returns
    /// the sends and the build to start.
    mutating func take(
        _ actions: DeliveryStateMachine.Actions,
        startingTimersWith makeTimer: (DeliveryStateMachine.Actions.Timer) -> Task<Void, Never>
    ) -> (sends: [DeliveryStateMachine.Actions.Send], build: DeliveryStateMachine.Actions.Build?) {
        for timer in actions.timers {
            timers[timer.id] = makeTimer(timer)
        }
        for id in actions.cancelledTimers {
            timers.removeValue(forKey: id)?.cancel()
        }
        // Most inputs (an enqueue) have neither: appending nothing still costs a call per array.
        if !actions.diagnostics.isEmpty {
            outbox += actions.diagnostics.map(DeliveryQueueOutboxEntry.report)
        }
        if !actions.resumedFlushes.isEmpty {
            outbox += actions.resumedFlushes.compactMap { flushes.removeValue(forKey: $0) }.map(DeliveryQueueOutboxEntry.resume)
        }
        return (actions.sends, actions.build)
    }
}

/// Something a ``DeliveryQueue`` does outside its lock, in the order the machine asked for it.
enum DeliveryQueueOutboxEntry {
    case report(DeliveryDiagnostic)
    case resume(CheckedContinuation<Void, Never>)
}
