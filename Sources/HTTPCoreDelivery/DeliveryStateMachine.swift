import Foundation
import HTTPCore
import HTTPCoreConcurrency

/// The rules of a ``DeliveryQueue``, with no I/O, no clock and no tasks of its own.
///
/// Each input (an item enqueued, a send completed, a timer fired, a flush, a shutdown)
/// changes the state and returns the ``Actions`` to perform; the queue performs them and
/// reports back. The time is always an argument, in nanoseconds of system uptime.
///
/// Three enums hold what used to be flags, so they cannot contradict each other:
/// - ``Connectivity``: while the destination does not answer, nothing is sent but one probe
///   at a time, at growing intervals. A probe is not a retry: only answers that are errors
///   count against ``DeliveryConfiguration/maximumRetries``, so an outage of any length
///   loses items only to the buffer's limits and ``DeliveryConfiguration/maximumAge``, both
///   counted and reported.
/// - ``Lifecycle``: running, stopping (nothing waits, what fails is given up), shut down
///   (items enqueued are dropped, counted and reported, a flood of them in few reports).
/// - ``Lookahead``: with ``DeliveryConfiguration/buildsBatchesAhead``, while the sends under
///   way take every slot, the next batch is built, so that it leaves as soon as one of them
///   ends instead of being built only then. One batch
///   at a time, its items still in the buffer (counted, and dropped or expired there like the
///   others); a batch whose items did not wait for it is discarded, and they are built again
///   when they leave.
struct DeliveryStateMachine {
    typealias Item = DeliveryBuffer.Item

    /// Whether the destination answers.
    enum Connectivity: Equatable {
        /// The last send got an answer, or none was made yet: batches leave as they are due.
        case reachable
        /// The last `failures` probes (and the send that found the outage) got no answer.
        case unreachable(failures: Int, probe: Probe)
    }

    /// The one send that finds out whether an unreachable destination answers again.
    enum Probe: Equatable {
        /// Sent when the timer fires.
        case scheduled(timer: UInt64)
        /// Under way.
        case sending(flight: UInt64)
        /// Nothing is buffered to probe with; the next item enqueued is the probe, at once.
        case idle
    }

    /// Where the queue is in its life.
    enum Lifecycle: Equatable {
        case running
        /// Shutdown started: batches leave at once, nothing waits for a backoff, and a batch
        /// that fails is given up.
        case stopping
        /// Nothing is sent any more; items enqueued are counted as dropped and reported as
        /// `late` says.
        case shutDown(late: LateItems)
    }

    /// The reports of items enqueued after shutdown: the first at once, those that follow
    /// together at the end of windows of 1 s, 2 s, 4 s ... up to a minute (``lateItemWindows``).
    enum LateItems: Equatable {
        /// No window is open: the next late item is reported at once and opens the first.
        case quiet
        /// Window `number` (from 1) ends when `timer` fires; `unreported` late items arrived
        /// since the last report.
        case window(number: Int, timer: UInt64, unreported: Int)
    }

    /// The batch built ahead, while the sends under way take every slot.
    enum Lookahead: Equatable {
        /// None is being built or waiting.
        case idle
        /// Build `id` is under way, for the `count` items from sequence `first` to `last` at
        /// the front of the buffer; they leave once it is built, not before.
        case building(id: UInt64, first: UInt64, last: UInt64, count: Int)
        /// Built, and kept on the item with sequence `first` until that item leaves the
        /// buffer: the next is built only then, so at most one built batch waits.
        case waiting(first: UInt64)
    }

    /// The length of each window of late items: its ceiling before "retry" `number`.
    static let lateItemWindows = Backoff(initial: 1, maximum: 60, jitter: .none)

    /// A batch taken from the buffer, until it is counted or put back.
    struct Flight {
        enum Phase: Equatable {
            /// Sent; `generation` is the ``DeliveryStateMachine/retryGeneration`` at the start,
            /// so a ``DeliveryQueue/retryNow()`` during the send cancels the backoff after it.
            case sending(generation: UInt64)
            case waitingToRetry(timer: UInt64)
        }

        var items: [Item]
        /// The batch built for these items, kept for their retries.
        var batch: (any Sendable)?
        /// Answers that were errors so far.
        var attempts: Int
        var phase: Phase
        /// The machine's count of answers when this send started: more by its end means the
        /// destination answered meanwhile.
        var answersAtStart: UInt64
    }

    /// A report made once until a batch is delivered again.
    private enum ReportKey: Hashable {
        /// Retries ran out after answers with this status (0: not HTTP, or none in time).
        case failed(status: Int)
        case expired
    }

    let configuration: DeliveryConfiguration
    private(set) var connectivity = Connectivity.reachable
    private(set) var lifecycle = Lifecycle.running
    private(set) var lookahead = Lookahead.idle
    private(set) var buffer: DeliveryBuffer
    private(set) var flights: [UInt64: Flight] = [:]
    private(set) var batchTimer: UInt64?
    private var counters = DeliveryStatistics()
    private var inFlightCount = 0
    private var nextSequence: UInt64 = 0
    private var nextID: UInt64 = 0
    private var retryGeneration: UInt64 = 0
    /// Sends answered so far, whatever the answer.
    private var answers: UInt64 = 0
    /// Items dropped since the buffer overflowed, while it has not had room again.
    private var dropsInOverflow: Int?
    /// Statuses of refusals already reported: once per status for the queue's life.
    private var reportedRejections: Set<Int> = []
    /// Failures and expiries already reported since the last delivery.
    private var reportedSinceDelivery: Set<ReportKey> = []
    private var flushWaiters: [(id: UInt64, target: UInt64)] = []

    init(configuration: DeliveryConfiguration) {
        self.configuration = configuration
        buffer = DeliveryBuffer(countLimit: configuration.bufferLimit, byteLimit: configuration.bufferByteLimit)
    }

    /// The counters, with the items pending now.
    var statistics: DeliveryStatistics {
        var statistics = counters
        statistics.pending = buffer.count + inFlightCount
        statistics.bufferedBytes = buffer.byteCount
        return statistics
    }

    // MARK: Inputs

    /// Accepts an item, dropping the oldest to make room.
    mutating func enqueue(_ element: any Sendable, byteCost: Int, now: UInt64) -> Actions {
        var actions = Actions()
        counters.accepted += 1
        if case .shutDown(let late) = lifecycle {
            // Too late to send: counted and reported, never silently lost.
            counters.dropped += 1
            counters.droppedAfterShutdown += 1
            lifecycle = .shutDown(late: arrivedLate(late, &actions))
            return actions
        }
        nextSequence += 1
        let item = Item(sequence: nextSequence, element: element, byteCost: byteCost, enqueuedAt: now)
        actions.evicted = buffer.append(item)
        recordDrops(actions.evicted.count, &actions)
        startSends(now: now, &actions)
        return finish(actions)
    }

    /// Registers a flush of every item accepted so far; `waiter` is in ``Actions/resumedFlushes``
    /// once they were all delivered or given up, or, while the destination is unreachable,
    /// once no probe is under way (the items stay buffered for when it answers).
    mutating func flush(now: UInt64) -> (waiter: UInt64, actions: Actions) {
        nextID += 1
        let waiter = nextID
        flushWaiters.append((waiter, nextSequence))
        var actions = Actions()
        reportLateItems(&actions)
        startSends(now: now, &actions)
        return (waiter, finish(actions))
    }

    /// A send ended with `outcome`; `batch` is what was sent.
    mutating func sendCompleted(_ id: UInt64, outcome: DeliveryOutcome, batch: any Sendable, now: UInt64) -> Actions {
        var actions = Actions()
        guard var flight = flights[id], case .sending(let generation) = flight.phase else { return actions }
        flight.batch = batch
        let isRetriedSinceStart = generation != retryGeneration
        switch outcome {
        case .delivered, .skipped:
            answered(&actions)
            // Later expiries and failures are news again.
            if !reportedSinceDelivery.isEmpty { reportedSinceDelivery.removeAll() }
            let skipped = if case .skipped(let count) = outcome { min(max(count, 0), flight.items.count) } else { 0 }
            settle(id) {
                $0.delivered += $1 - skipped
                $0.skipped += skipped
            }
        case .rejected(let status, let reason):
            answered(&actions)
            if reportedRejections.insert(status).inserted {
                actions.diagnostics.append(.rejected(status: status, reason: reason))
            }
            settle(id) { $0.rejected += $1 }
        case .retryable(let status, let retryAfter):
            answered(&actions)
            retryOrFail(&flight, id, answer: status == 0 ? "an answer that is not HTTP" : "status \(status)", status: status,
                        retryAfter: retryAfter, isRetriedSinceStart: isRetriedSinceStart, &actions)
        case .unreachable(let reason) where lifecycle == .running && connectivity == .reachable && answers > flight.answersAtStart:
            // The destination answered another send meanwhile: it is reachable, and this
            // batch's missing answer (a timeout of a slow server) is an error of its own.
            retryOrFail(&flight, id, answer: "no answer (\(reason))", status: 0, retryAfter: nil,
                        isRetriedSinceStart: isRetriedSinceStart, &actions)
        case .unreachable(let reason):
            guard lifecycle == .running else {
                giveUpAtShutdown(flight: id, reason: reason, &actions)
                break
            }
            flights[id] = nil
            inFlightCount -= flight.items.count
            recordDrops(putBack(flight), &actions)
            wentUnreachable(reason: reason, probedBy: id, isRetriedSinceStart: isRetriedSinceStart, &actions)
        }
        startSends(now: now, &actions)
        return finish(actions)
    }

    /// After an answer that is an error: the batch waits for its retry, or is given up once
    /// its retries ran out or while stopping.
    private mutating func retryOrFail(
        _ flight: inout Flight, _ id: UInt64, answer: String, status: Int, retryAfter: TimeInterval?,
        isRetriedSinceStart: Bool, _ actions: inout Actions
    ) {
        guard lifecycle == .running else {
            // Reported each time: at most once per send under way when shutdown started.
            actions.diagnostics.append(.failed(count: flight.items.count, reason: "\(answer) during shutdown"))
            settle(id) { $0.failed += $1 }
            return
        }
        guard flight.attempts < configuration.maximumRetries else {
            let retries = "\(flight.attempts) retr\(flight.attempts == 1 ? "y" : "ies")"
            report(.failed(count: flight.items.count, reason: "\(answer) after \(retries)"), once: .failed(status: status), &actions)
            settle(id) { $0.failed += $1 }
            return
        }
        flight.attempts += 1
        counters.retried += flight.items.count
        let ceiling = configuration.backoff.ceiling(beforeRetry: .max)
        let delay = isRetriedSinceStart
            ? 0 : retryAfter.map { min($0, ceiling) } ?? configuration.backoff.delay(beforeRetry: flight.attempts)
        flight.phase = .waitingToRetry(timer: startTimer(after: delay, &actions))
        flights[id] = flight
    }

    /// A timer started by an earlier input fired; stale timers are ignored.
    mutating func timerFired(_ timer: UInt64, now: UInt64) -> Actions {
        var actions = Actions()
        if batchTimer == timer {
            batchTimer = nil
        } else if case .shutDown(.window(let number, timer, _)) = lifecycle {
            lateItemWindowEnded(number, &actions)
        } else if case .unreachable(let failures, .scheduled(timer)) = connectivity {
            startProbe(failures: failures, now: now, &actions)
        } else if let id = flights.first(where: { $0.value.phase == .waitingToRetry(timer: timer) })?.key {
            resend(id, now: now, &actions)
        }
        startSends(now: now, &actions)
        return finish(actions)
    }

    /// Build `id` (an ``Actions/build``) made `batch`. It is kept for its items' send when they
    /// still wait together in the buffer, and discarded otherwise (they were dropped, expired
    /// or taken meanwhile): their counts are the buffer's business, never the build's.
    mutating func batchBuilt(_ id: UInt64, batch: any Sendable, now: UInt64) -> Actions {
        var actions = Actions()
        guard case .building(id, let first, let last, let count) = lookahead else { return actions }
        let prepared = DeliveryBuffer.PreparedBatch(batch: batch, count: count, lastSequence: last)
        lookahead = buffer.keep(prepared, forItemsFrom: first) ? .waiting(first: first) : .idle
        startSends(now: now, &actions)
        return finish(actions)
    }

    /// Ends every backoff: batches waiting for a retry are sent at once, and an unreachable
    /// destination is probed at once, its backoff started afresh.
    mutating func retryNow(now: UInt64) -> Actions {
        var actions = Actions()
        retryGeneration += 1
        cutBackoffsShort(now: now, &actions)
        if case .unreachable(_, let probe) = connectivity {
            connectivity = .unreachable(failures: 0, probe: probe)
        }
        startSends(now: now, &actions)
        return finish(actions)
    }

    /// Starts stopping: nothing waits any more for a batch to fill or for a backoff.
    mutating func beginShutdown(now: UInt64) -> Actions {
        var actions = Actions()
        guard lifecycle == .running else { return actions }
        lifecycle = .stopping
        if let timer = batchTimer {
            actions.cancelledTimers.append(timer)
            batchTimer = nil
        }
        cutBackoffsShort(now: now, &actions)
        startSends(now: now, &actions)
        return finish(actions)
    }

    /// Stops for good, once the flush that followed ``beginShutdown(now:)`` returned: what is
    /// still buffered is given up, and later items are dropped.
    mutating func finishShutdown() -> Actions {
        var actions = Actions()
        if case .shutDown = lifecycle {} else { lifecycle = .shutDown(late: .quiet) }
        let abandoned = buffer.removeAll(through: .max)
        counters.failed += abandoned
        if abandoned > 0 {
            actions.diagnostics.append(.failed(count: abandoned, reason: "shut down"))
        }
        if let timer = batchTimer { actions.cancelledTimers.append(timer) }
        batchTimer = nil
        return finish(actions)
    }

    // MARK: Items after shutdown

    /// Counts a late item as `late` says: reported at once when no window is open, else
    /// with the others of its window.
    private mutating func arrivedLate(_ late: LateItems, _ actions: inout Actions) -> LateItems {
        switch late {
        case .quiet:
            actions.diagnostics.append(.droppedAfterShutdown(count: 1, total: counters.droppedAfterShutdown))
            return openLateItemWindow(1, &actions)
        case .window(let number, let timer, let unreported):
            return .window(number: number, timer: timer, unreported: unreported + 1)
        }
    }

    /// Window `number` ended: its late items are reported and the next, longer window opens;
    /// a window without any ends the series.
    private mutating func lateItemWindowEnded(_ number: Int, _ actions: inout Actions) {
        guard case .shutDown(.window(_, _, let unreported)) = lifecycle, unreported > 0 else {
            lifecycle = .shutDown(late: .quiet)
            return
        }
        reportLateItems(&actions)
        lifecycle = .shutDown(late: openLateItemWindow(number + 1, &actions))
    }

    /// Reports the late items not reported yet, at once; the window stays open.
    private mutating func reportLateItems(_ actions: inout Actions) {
        guard case .shutDown(.window(let number, let timer, let unreported)) = lifecycle, unreported > 0 else { return }
        actions.diagnostics.append(.droppedAfterShutdown(count: unreported, total: counters.droppedAfterShutdown))
        lifecycle = .shutDown(late: .window(number: number, timer: timer, unreported: 0))
    }

    private mutating func openLateItemWindow(_ number: Int, _ actions: inout Actions) -> LateItems {
        .window(number: number, timer: startTimer(after: Self.lateItemWindows.ceiling(beforeRetry: number), &actions), unreported: 0)
    }

    // MARK: Sending

    /// Starts as many sends as are due and allowed, or the probe, or the timer of a batch
    /// that is filling; with every slot taken, builds the next batch ahead.
    private mutating func startSends(now: UInt64, _ actions: inout Actions) {
        switch (lifecycle, connectivity) {
        case (.shutDown, _), (_, .unreachable(_, .scheduled)), (_, .unreachable(_, .sending)):
            return
        case (_, .unreachable(let failures, .idle)):
            startProbe(failures: failures, now: now, &actions)
        case (_, .reachable):
            expireFront(now: now, &actions)
            let slots = max(1, configuration.maximumConcurrentSends)
            // A batch being built leaves when it is built: sooner than if it were built again.
            while flights.count < slots, !isFrontBeingBuilt, isBatchDue(now: now) {
                startFlight(takeBatch(), &actions)
            }
            guard flights.count < slots else { return buildAhead(&actions) }
            guard !isFrontBeingBuilt, let first = buffer.first, batchTimer == nil else { return }
            let dueAt = first.enqueuedAt &+ Moment.nanoseconds(configuration.batching.maximumDelay)
            nextID += 1
            batchTimer = nextID
            actions.timers.append(Actions.Timer(id: nextID, delay: dueAt &- min(dueAt, now)))
        }
    }

    /// Whether the items at the front make a batch to send now.
    private func isBatchDue(now: UInt64) -> Bool {
        guard let first = buffer.first else { return false }
        let batching = configuration.batching
        return buffer.count >= batching.maximumCount || buffer.byteCount >= batching.maximumBytes
            || batching.maximumDelay <= 0 || first.prepared != nil || first.attempts > 0
            || !flushWaiters.isEmpty || lifecycle != .running
            || now &- first.enqueuedAt >= Moment.nanoseconds(batching.maximumDelay)
    }

    /// Takes the items of one batch from the front of the buffer: a batch built already (put
    /// back, or built ahead) as it was, else as many as the batching limits allow.
    private mutating func takeBatch() -> [Item] {
        guard let prepared = buffer.first?.prepared else {
            return (0..<batchAtFront().count).map { _ in buffer.popFirst()! }
        }
        var items = [buffer.popFirst()!]
        while items.count < prepared.count, let next = buffer.first, next.prepared == nil {
            items.append(buffer.popFirst()!)
        }
        if items.count < prepared.count || items.last?.sequence != prepared.lastSequence { items[0].prepared = nil }
        return items
    }

    /// The batch the batching limits make from the items at the front of the buffer, the
    /// first without a batch built for it: how many items it holds (none when the buffer is
    /// empty), and whether it is complete, at the most items or with the next item beyond
    /// the byte limit, so that no item enqueued later could join it.
    private func batchAtFront() -> (count: Int, isComplete: Bool) {
        guard let first = buffer.first else { return (0, false) }
        let batching = configuration.batching
        var count = 1
        var bytes = first.byteCost
        while count < batching.maximumCount, count < buffer.count {
            let next = buffer[count]
            guard next.prepared == nil else { return (count, false) }
            guard bytes + next.byteCost <= batching.maximumBytes else { return (count, true) }
            bytes += next.byteCost
            count += 1
        }
        return (count, count >= batching.maximumCount)
    }

    /// Whether the items at the front of the buffer are being built into a batch.
    private var isFrontBeingBuilt: Bool {
        guard case .building(_, let first, _, _) = lookahead else { return false }
        return buffer.first?.sequence == first
    }

    /// With every slot taken, builds the batch at the front of the buffer, so that it is
    /// ready when a send ends: only a complete batch (one that could still grow waits to be
    /// taken as it is then), one at a time, and only once the last one built ahead has left
    /// the buffer.
    private mutating func buildAhead(_ actions: inout Actions) {
        guard configuration.buildsBatchesAhead else { return }
        if case .waiting(let first) = lookahead, (buffer.first?.sequence ?? .max) > first {
            lookahead = .idle
        }
        guard lookahead == .idle, let front = buffer.first, front.prepared == nil else { return }
        let (count, isComplete) = batchAtFront()
        guard isComplete else { return }
        let items = (0..<count).map { buffer[$0] }
        nextID += 1
        lookahead = .building(id: nextID, first: front.sequence, last: items[count - 1].sequence, count: count)
        actions.build = Actions.Build(id: nextID, items: items)
    }

    @discardableResult
    private mutating func startFlight(_ items: [Item], _ actions: inout Actions) -> UInt64 {
        nextID += 1
        let prepared = items.first?.prepared.flatMap { $0.count == items.count ? $0.batch : nil }
        // The fewest retries of the items: one that joined a dissolved batch is never given
        // up with fewer retries of its own than configured.
        flights[nextID] = Flight(
            items: items, batch: prepared, attempts: items.map(\.attempts).min() ?? 0,
            phase: .sending(generation: retryGeneration), answersAtStart: answers
        )
        inFlightCount += items.count
        actions.sends.append(Actions.Send(flight: nextID, items: items, batch: prepared))
        return nextID
    }

    /// Sends a batch again after its backoff, without the items that outlived the maximum
    /// age meanwhile (the batch is then rebuilt from the rest).
    private mutating func resend(_ id: UInt64, now: UInt64, _ actions: inout Actions) {
        guard var flight = flights[id] else { return }
        if let maximumAge = configuration.maximumAge.map(Moment.nanoseconds) {
            let expired = flight.items.count { $0.hasOutlived(maximumAge, now: now) }
            if expired > 0 {
                flight.items.removeAll { $0.hasOutlived(maximumAge, now: now) }
                flight.batch = nil
                inFlightCount -= expired
                countExpired(expired, &actions)
            }
        }
        guard !flight.items.isEmpty else {
            flights[id] = nil
            return
        }
        flight.phase = .sending(generation: retryGeneration)
        flight.answersAtStart = answers
        flights[id] = flight
        actions.sends.append(Actions.Send(flight: id, items: flight.items, batch: flight.batch))
    }

    /// Sends the waiting retries at once and probes an unreachable destination at once.
    private mutating func cutBackoffsShort(now: UInt64, _ actions: inout Actions) {
        for (id, flight) in flights {
            guard case .waitingToRetry(let timer) = flight.phase else { continue }
            actions.cancelledTimers.append(timer)
            resend(id, now: now, &actions)
        }
        if case .unreachable(let failures, .scheduled(let timer)) = connectivity {
            actions.cancelledTimers.append(timer)
            startProbe(failures: failures, now: now, &actions)
        }
    }

    // MARK: Connectivity

    /// Any answer, even an error, shows the destination is reachable.
    private mutating func answered(_ actions: inout Actions) {
        answers += 1
        guard case .unreachable(_, let probe) = connectivity else { return }
        if case .scheduled(let timer) = probe { actions.cancelledTimers.append(timer) }
        connectivity = .reachable
        actions.diagnostics.append(.reachableAgain)
    }

    private mutating func wentUnreachable(
        reason: String, probedBy flight: UInt64, isRetriedSinceStart: Bool, _ actions: inout Actions
    ) {
        let failures: Int
        switch connectivity {
        case .reachable:
            actions.diagnostics.append(.unreachable(reason: reason))
            failures = 1
        case .unreachable(let previous, .sending(flight)), .unreachable(let previous, .idle):
            failures = previous + 1
        case .unreachable:
            // A send that started before the outage found it too; the probe goes on.
            return
        }
        let delay = isRetriedSinceStart ? 0 : configuration.backoff.delay(beforeRetry: failures)
        connectivity = .unreachable(failures: failures, probe: .scheduled(timer: startTimer(after: delay, &actions)))
    }

    private mutating func startProbe(failures: Int, now: UInt64, _ actions: inout Actions) {
        expireFront(now: now, &actions)
        guard !buffer.isEmpty else {
            connectivity = .unreachable(failures: failures, probe: .idle)
            return
        }
        counters.probes += 1
        let flight = startFlight(takeBatch(), &actions)
        connectivity = .unreachable(failures: failures, probe: .sending(flight: flight))
    }

    /// Returns a batch's items to the front of the buffer, the built batch kept on the first;
    /// returns how many of the oldest items were dropped to stay within the buffer's limits.
    private mutating func putBack(_ flight: Flight) -> Int {
        var items = flight.items
        for index in items.indices {
            items[index].attempts = flight.attempts
            items[index].prepared = nil
        }
        if let last = items.last {
            items[0].prepared = flight.batch.map { DeliveryBuffer.PreparedBatch(batch: $0, count: items.count, lastSequence: last.sequence) }
        }
        return buffer.putBack(items)
    }

    // MARK: Accounting

    private mutating func startTimer(after seconds: TimeInterval, _ actions: inout Actions) -> UInt64 {
        nextID += 1
        actions.timers.append(Actions.Timer(id: nextID, delay: Moment.nanoseconds(seconds)))
        return nextID
    }

    /// Ends a flight, counting its items with `count`.
    private mutating func settle(_ id: UInt64, _ count: (inout DeliveryStatistics, Int) -> Void) {
        guard let flight = flights.removeValue(forKey: id) else { return }
        inFlightCount -= flight.items.count
        count(&counters, flight.items.count)
    }

    /// The destination did not answer during shutdown: the batch and everything buffered
    /// are given up.
    private mutating func giveUpAtShutdown(flight id: UInt64, reason: String, _ actions: inout Actions) {
        let count = (flights[id]?.items.count ?? 0) + buffer.count
        settle(id) { $0.failed += $1 }
        counters.failed += buffer.removeAll(through: .max)
        // Reported each time: at most once per send under way when shutdown started.
        actions.diagnostics.append(.failed(count: count, reason: "unreachable during shutdown (\(reason))"))
        // An item enqueued from now on is sent at once, as the probe.
        if case .unreachable(let failures, _) = connectivity {
            connectivity = .unreachable(failures: failures, probe: .idle)
        } else {
            connectivity = .unreachable(failures: 1, probe: .idle)
        }
    }

    private mutating func recordDrops(_ count: Int, _ actions: inout Actions) {
        guard count > 0 else { return }
        counters.dropped += count
        if dropsInOverflow == nil {
            actions.diagnostics.append(.overflowStarted(countLimit: buffer.countLimit, byteLimit: buffer.byteLimit))
        }
        dropsInOverflow = (dropsInOverflow ?? 0) + count
    }

    /// Drops the items at the front that waited longer than the maximum age.
    private mutating func expireFront(now: UInt64, _ actions: inout Actions) {
        guard let maximumAge = configuration.maximumAge.map(Moment.nanoseconds) else { return }
        var expired = 0
        while let first = buffer.first, first.hasOutlived(maximumAge, now: now) {
            _ = buffer.popFirst()
            expired += 1
        }
        countExpired(expired, &actions)
    }

    private mutating func countExpired(_ count: Int, _ actions: inout Actions) {
        guard count > 0 else { return }
        counters.expired += count
        report(.expired(count: count), once: .expired, &actions)
    }

    private mutating func report(_ diagnostic: DeliveryDiagnostic, once key: ReportKey, _ actions: inout Actions) {
        if reportedSinceDelivery.insert(key).inserted { actions.diagnostics.append(diagnostic) }
    }

    /// Ends an overflow that is over and resumes the flushes that are done: every input
    /// ends here.
    private mutating func finish(_ actions: consuming Actions) -> Actions {
        if let dropped = dropsInOverflow, buffer.count <= buffer.countLimit / 2, buffer.byteCount <= buffer.byteLimit / 2 {
            // Half, not one free slot, so a sustained overflow reports once, not per item.
            dropsInOverflow = nil
            actions.diagnostics.append(.overflowEnded(dropped: dropped))
        }
        guard !flushWaiters.isEmpty else { return actions }
        // While a probe is under way its answer is awaited; between probes, nothing is.
        var isWaitingForAnOutage = false
        if case .unreachable(_, let probe) = connectivity, lifecycle == .running {
            if case .sending = probe {} else { isWaitingForAnOutage = true }
        }
        for waiter in flushWaiters where isWaitingForAnOutage || isSettled(through: waiter.target) {
            actions.resumedFlushes.append(waiter.id)
        }
        if !actions.resumedFlushes.isEmpty {
            flushWaiters.removeAll { actions.resumedFlushes.contains($0.id) }
        }
        return actions
    }

    /// Whether every item up to `target` was delivered or given up, and no batch is being
    /// built: so a flush, and shutdown, return with no work of the queue's under way.
    private func isSettled(through target: UInt64) -> Bool {
        if case .building = lookahead { return false }
        return (buffer.firstSequence.map { $0 > target } ?? true)
            && flights.values.allSatisfy { ($0.items.first?.sequence ?? .max) > target }
    }
}
