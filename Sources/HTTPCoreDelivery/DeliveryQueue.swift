import Dispatch
import Foundation
import HTTPCore

/// Delivers items to a destination in batches, at no cost to the code that enqueues them.
///
/// Use it to ship logs, spans or events anywhere: give it a ``DeliverySender`` that builds
/// and sends a batch, and enqueue items.
///
/// ```swift
/// let queue = DeliveryQueue(sender: LineSender(url: collector), configuration: configuration)
/// queue.enqueue("GET /health 200", byteCost: 64)
/// await queue.flush()
/// print(queue.statistics)   // accepted 1, delivered 1, ...
/// ```
///
/// - Cost: ``enqueue(_:byteCost:)`` takes a lock, appends, and returns; it never waits for a
///   send. Batches are built and sent by workers that exist only while there is work.
/// - Memory: waiting items are bounded by ``DeliveryConfiguration/bufferLimit`` and
///   ``DeliveryConfiguration/bufferByteLimit``; the oldest are dropped first, and counted.
/// - Batching: a batch is sent when it holds ``DeliveryConfiguration/Batching/maximumCount``
///   items or ``DeliveryConfiguration/Batching/maximumBytes`` bytes, or when its oldest item
///   has waited ``DeliveryConfiguration/Batching/maximumDelay``, whichever comes first.
/// - Failures: a retryable answer is retried with backoff (or after the destination's
///   `Retry-After`); a refusal is counted, never retried. When the destination does not
///   answer, the queue goes offline: one worker probes with the oldest batch at growing
///   intervals while the buffer keeps the newest items; the first answer brings every
///   worker back.
/// - Accounting: every item ends in exactly one counter of ``statistics``; see
///   ``DeliveryStatistics``.
public final class DeliveryQueue<Sender: DeliverySender>: Sendable {
    typealias Buffer = DeliveryBuffer
    typealias State = DeliveryQueueState

    /// What builds and sends the batches.
    public let sender: Sender
    /// The configuration the queue was created with.
    public let configuration: DeliveryConfiguration
    private let state: Locked<State>

    /// Creates a queue; no worker runs until an item is enqueued.
    public init(sender: Sender, configuration: DeliveryConfiguration = DeliveryConfiguration()) {
        self.sender = sender
        self.configuration = configuration
        state = Locked(State(buffer: Buffer(countLimit: configuration.bufferLimit, byteLimit: configuration.bufferByteLimit)))
    }

    /// The counters so far, with the items pending now.
    public var statistics: DeliveryStatistics {
        state.withLock { state in
            var statistics = state.statistics
            statistics.pending = state.buffer.count + state.inFlight.count
            statistics.bufferedBytes = state.buffer.byteCount
            return statistics
        }
    }

    /// Accepts an item and makes sure a worker will send it. Never waits.
    ///
    /// `byteCost` is what the item keeps alive while it waits, as the caller accounts it; the
    /// buffer's byte limit and the batches' byte limit are measured with it.
    public func enqueue(_ item: Sender.Item, byteCost: Int) {
        let enqueuedAt = Self.now()
        let (ready, report) = state.withLock { state -> ([CheckedContinuation<Void, Never>], DeliveryDiagnostic?) in
            state.statistics.accepted += 1
            guard !state.isShutDown else {
                // Too late to send: counted, not silently lost.
                state.statistics.dropped += 1
                return ([], nil)
            }
            state.nextSequence += 1
            let dropped = state.buffer.append(
                Buffer.Item(sequence: state.nextSequence, element: item, byteCost: byteCost, enqueuedAt: enqueuedAt)
            )
            let report = state.recordDrops(dropped)
            startWorkers(&state)
            return (dropped > 0 ? state.readyFlushWaiters() : [], report)
        }
        ready.forEach { $0.resume() }
        report.map(configuration.diagnostics)
    }

    /// Returns when every item accepted before the call was delivered or given up. Batches
    /// that are not full are sent at once. While the destination is unreachable, the waiting
    /// items are given up (counted as failed) at once rather than waited for.
    public func flush() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let (isDone, report) = state.withLock { state -> (Bool, DeliveryDiagnostic?) in
                let target = state.nextSequence
                if state.isOffline || state.isShutDown {
                    state.statistics.failed += state.buffer.removeAll(through: target)
                }
                let report = state.endOverflowIfRelieved()
                if state.isSettled(through: target) { return (true, report) }
                state.flushWaiters.append((target, continuation))
                startWorkers(&state)
                return (false, report)
            }
            report.map(configuration.diagnostics)
            if isDone { continuation.resume() }
        }
    }

    /// Sends what the destination takes without further waiting (a batch that fails is given
    /// up rather than retried after a backoff), then stops every worker. Items enqueued later
    /// are counted as dropped.
    public func shutdown() async {
        let sleepers = state.withLock { state in
            state.isStopping = true
            state.batchTimer?.cancel()
            state.batchTimer = nil
            return state.takeSleepers()
        }
        wake(sleepers)
        await flush()
        let (workers, ready) = state.withLock { state -> ([Task<Void, Never>], [CheckedContinuation<Void, Never>]) in
            state.isShutDown = true
            state.statistics.failed += state.buffer.removeAll(through: .max)
            return (Array(state.workers.values), state.readyFlushWaiters())
        }
        ready.forEach { $0.resume() }
        for worker in workers { await worker.value }
    }

    /// Ends every backoff: waiting batches are tried at once, for example because the
    /// destination just changed.
    public func retryNow() {
        let sleepers = state.withLock { state in
            state.consecutiveFailures = 0
            state.isOffline = false
            state.hasProber = false
            // A send under way when this is called waits for nothing after it fails either.
            state.retryGeneration += 1
            startWorkers(&state)
            return state.takeSleepers()
        }
        wake(sleepers)
    }

    private func wake(_ sleepers: [DeliveryQueueState.Sleeper]) {
        for sleeper in sleepers {
            sleeper.timer?.cancel()
            sleeper.continuation.resume()
        }
    }

    // MARK: Workers

    private func startWorkers(_ state: inout State) {
        guard !state.isShutDown, !state.isOffline, !state.buffer.isEmpty else { return }
        guard isBatchDue(state) else { return armBatchTimer(&state) }
        let batches = 1 + (state.buffer.count - 1) / max(1, configuration.batching.maximumCount)
        let wanted = min(max(1, configuration.maximumConcurrentSends) - state.workers.count, batches)
        for _ in 0..<max(0, wanted) {
            state.nextWorkerID += 1
            let id = state.nextWorkerID
            state.workers[id] = Task.detached { [self] in await runWorker(id: id) }
        }
    }

    /// Whether the items at the front make a batch to send now.
    private func isBatchDue(_ state: State) -> Bool {
        let batching = configuration.batching
        guard let first = state.buffer.first else { return false }
        if state.buffer.count >= batching.maximumCount || state.buffer.byteCount >= batching.maximumBytes
            || batching.maximumDelay <= 0 || first.attempts > 0 || !state.flushWaiters.isEmpty || state.isStopping
        {
            return true
        }
        return Self.now() &- first.enqueuedAt >= Moment.nanoseconds(batching.maximumDelay)
    }

    private func armBatchTimer(_ state: inout State) {
        guard state.batchTimer == nil, let first = state.buffer.first else { return }
        let dueAt = first.enqueuedAt &+ Moment.nanoseconds(configuration.batching.maximumDelay)
        let wait = dueAt &- min(dueAt, Self.now())
        state.batchTimer = Task.detached { [self] in
            try? await Task.sleep(nanoseconds: wait)
            self.state.withLock { state in
                state.batchTimer = nil
                startWorkers(&state)
            }
        }
    }

    private func runWorker(id: UInt64) async {
        var isProber = false
        while let batch = nextBatch(worker: id, isProber: isProber) {
            switch await send(batch, worker: id, isProber: isProber) {
            case .next:
                isProber = false
            case .probe(let delay, let generation):
                isProber = true
                await sleep(delay, unlessRetriedSince: generation)
            case .stop:
                return
            }
        }
    }

    /// The next batch for a worker, or `nil` after unregistering the worker.
    private func nextBatch(worker id: UInt64, isProber: Bool) -> InFlightBatch? {
        let maximumAge = configuration.maximumAge.map(Moment.nanoseconds)
        let now = maximumAge == nil ? 0 : Self.now()
        let (items, ready, reports) = state.withLock { state in
            let expiredBefore = state.statistics.expired
            var reports = [state.dropExpired(maximumAge: maximumAge, now: now)]
            var items: [Buffer.Item] = []
            if !state.isShutDown, !state.isOffline || isProber, isProber || isBatchDue(state) {
                items = takeBatch(&state)
                state.inFlight.formUnion(items.map(\.sequence))
            }
            if items.isEmpty {
                state.workers[id] = nil
                if isProber {
                    // Nothing left to probe with: the next item finds out afresh.
                    state.isOffline = false
                    state.hasProber = false
                }
                startWorkers(&state)
            }
            reports.append(state.endOverflowIfRelieved())
            let ready = state.statistics.expired > expiredBefore ? state.readyFlushWaiters() : []
            return (items, ready, reports.compactMap { $0 })
        }
        reports.forEach(configuration.diagnostics)
        ready.forEach { $0.resume() }
        guard let first = items.first else { return nil }
        let prepared = first.prepared.flatMap { $0.count == items.count ? $0.batch as? Sender.Batch : nil }
        return InFlightBatch(
            items: items,
            batch: prepared ?? sender.makeBatch(items.map { $0.element as! Sender.Item }),
            attempts: items.map(\.attempts).max() ?? 0
        )
    }

    /// Takes the items of one batch from the front of the buffer: a batch put back for a
    /// retry as it was, else as many as the batching limits allow.
    private func takeBatch(_ state: inout State) -> [Buffer.Item] {
        guard let first = state.buffer.popFirst() else { return [] }
        var items = [first]
        if let prepared = first.prepared {
            while items.count < prepared.count, let next = state.buffer.popFirst() { items.append(next) }
            return items
        }
        var bytes = first.byteCost
        let batching = configuration.batching
        while items.count < batching.maximumCount, let next = state.buffer.first, next.prepared == nil,
            bytes + next.byteCost <= batching.maximumBytes
        {
            items.append(state.buffer.popFirst()!)
            bytes += next.byteCost
        }
        return items
    }

    private func send(_ taken: InFlightBatch, worker: UInt64, isProber: Bool) async -> Step {
        var batch = taken
        while true {
            let (isShutDown, generation) = state.withLock { ($0.isShutDown, $0.retryGeneration) }
            guard !isShutDown else {
                settle(batch.items) { $0.statistics.failed += batch.count }
                return .next
            }
            let outcome = await sender.send(batch.batch)
            switch outcome {
            case .delivered:
                // Reports first: whoever a flush wakes sees them.
                markReachable()
                settle(batch.items) { $0.statistics.delivered += batch.count }
                return .next
            case .rejected(let status, let reason):
                markReachable()
                reportRejection(status: status, reason: reason)
                settle(batch.items) { $0.statistics.rejected += batch.count }
                return .next
            case .unreachable(let reason):
                batch.attempts += 1
                return wentUnreachable(with: batch, reason: reason, worker: worker, isProber: isProber, generation: generation)
            case .retryable(_, let retryAfter):
                markReachable()
                guard batch.attempts < configuration.maximumRetries, !state.withLock({ $0.isStopping }) else {
                    settle(batch.items) { $0.statistics.failed += batch.count }
                    return .next
                }
                batch.attempts += 1
                state.withLock { $0.statistics.retried += batch.count }
                let maximum = configuration.backoff.ceiling(beforeRetry: .max)
                let delay = retryAfter.map { min($0, maximum) } ?? configuration.backoff.delay(beforeRetry: batch.attempts)
                await sleep(delay, unlessRetriedSince: generation)
                guard let unexpired = removingExpired(from: batch) else { return .next }
                batch = unexpired
            }
        }
    }

    /// The batch without the items that outlived ``DeliveryConfiguration/maximumAge`` while
    /// it waited to be retried, rebuilt from the rest; `nil` when none is left. The removed
    /// items are counted as expired.
    private func removingExpired(from batch: InFlightBatch) -> InFlightBatch? {
        guard let maximumAge = configuration.maximumAge.map(Moment.nanoseconds) else { return batch }
        let now = Self.now()
        let expired = batch.items.filter { $0.hasOutlived(maximumAge, now: now) }
        guard !expired.isEmpty else { return batch }
        let kept = batch.items.filter { !$0.hasOutlived(maximumAge, now: now) }
        var report: DeliveryDiagnostic?
        settle(expired) { report = $0.countExpired(expired.count) }
        report.map(configuration.diagnostics)
        guard !kept.isEmpty else { return nil }
        return InFlightBatch(items: kept, batch: sender.makeBatch(kept.map { $0.element as! Sender.Item }), attempts: batch.attempts)
    }

    /// Ends `items`' flight, counting them with `count`, and wakes the flushes that waited
    /// for them.
    private func settle(_ items: [Buffer.Item], _ count: (inout State) -> Void) {
        let ready = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.inFlight.subtract(items.map(\.sequence))
            count(&state)
            return state.readyFlushWaiters()
        }
        ready.forEach { $0.resume() }
    }

    private func wentUnreachable(
        with batch: InFlightBatch, reason: String, worker: UInt64, isProber: Bool, generation: UInt64
    ) -> Step {
        let (step, ready, reports) = state.withLock { state -> (Step, [CheckedContinuation<Void, Never>], [DeliveryDiagnostic]) in
            state.inFlight.subtract(batch.items.map(\.sequence))
            if batch.attempts > configuration.maximumRetries {
                state.statistics.failed += batch.count
            } else if let target = state.flushWaiters.map(\.target).max() {
                // Someone waits for a flush: give up what it waits for rather than make it wait out the outage.
                state.statistics.failed += batch.count + state.buffer.removeAll(through: target)
            } else {
                state.statistics.retried += batch.count
                putBack(batch, into: &state.buffer)
            }
            // Items that arrived meanwhile may have filled the buffer: the oldest make room,
            // the batch put back first, as with any overflow.
            var reports = [state.recordDrops(state.buffer.dropOldestBeyondLimits())].compactMap { $0 }
            state.isOffline = true
            state.consecutiveFailures += 1
            if !state.isReportedUnreachable { reports.append(.unreachable(reason: reason)) }
            state.isReportedUnreachable = true
            let step: Step
            if state.hasProber && !isProber {
                state.workers[worker] = nil
                step = .stop
            } else {
                state.hasProber = true
                step = .probe(after: configuration.backoff.delay(beforeRetry: state.consecutiveFailures), generation: generation)
            }
            let ready = state.readyFlushWaiters()
            if let report = state.endOverflowIfRelieved() { reports.append(report) }
            return (step, ready, reports)
        }
        reports.forEach(configuration.diagnostics)
        ready.forEach { $0.resume() }
        return step
    }

    /// Returns a batch's items to the front of the buffer, the built batch kept on the first.
    private func putBack(_ batch: InFlightBatch, into buffer: inout Buffer) {
        for index in batch.items.indices.reversed() {
            var item = batch.items[index]
            item.attempts = batch.attempts
            item.prepared = index == 0 ? Buffer.PreparedBatch(batch: batch.batch, count: batch.count) : nil
            buffer.pushFront(item)
        }
    }

    private func markReachable() {
        let report = state.withLock { state -> DeliveryDiagnostic? in
            let wasUnreachable = state.isReportedUnreachable
            state.isOffline = false
            state.hasProber = false
            state.consecutiveFailures = 0
            state.isReportedUnreachable = false
            if wasUnreachable { startWorkers(&state) }
            return wasUnreachable ? .reachableAgain : nil
        }
        report.map(configuration.diagnostics)
    }

    private func reportRejection(status: Int, reason: String) {
        if state.withLock({ $0.reportedRejections.insert(status).inserted }) {
            configuration.diagnostics(.rejected(status: status, reason: reason))
        }
    }

    /// Waits `seconds`, or less if shutdown starts or ``retryNow()`` is called meanwhile,
    /// or was called since `generation` was read.
    private func sleep(_ seconds: TimeInterval, unlessRetriedSince generation: UInt64) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let isStopping = state.withLock { state -> Bool in
                guard !state.isStopping, state.retryGeneration == generation else { return true }
                state.nextSleeperID += 1
                let id = state.nextSleeperID
                let timer = Task.detached { [self] in
                    try? await Task.sleep(nanoseconds: Moment.nanoseconds(seconds))
                    self.state.withLock { $0.sleepers.removeValue(forKey: id) }?.continuation.resume()
                }
                state.sleepers[id] = DeliveryQueueState.Sleeper(continuation: continuation, timer: timer)
                return false
            }
            if isStopping { continuation.resume() }
        }
    }

    private static func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }
}
