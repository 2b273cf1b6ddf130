import Foundation
import HTTPCore

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Buffers accepted logs and uploads them with a few workers, retrying with backoff.
///
/// Workers exist only while there is work: accepting a log starts one when fewer than
/// `maxConcurrentUploads` run. When the server does not answer, the shipper goes offline:
/// one worker probes with the oldest log at growing intervals while the others stop, and the
/// buffer keeps the newest logs within its limits. The first answer brings every worker back.
final class LogShipper: Sendable {
    private struct State {
        var buffer: LogBuffer
        var statistics = DevSeeDeliveryStatistics()
        var endpoint: DevSeeEndpoint
        /// `endpoint` with the API path, built once per endpoint rather than once per upload.
        var uploadURL: URL
        var nextSequence: UInt64 = 0
        var inFlight: Set<UInt64> = []
        var workers: [UInt64: Task<Void, Never>] = [:]
        var nextWorkerID: UInt64 = 0
        var isOffline = false
        var hasProber = false
        var consecutiveFailures = 0
        var isReportedUnreachable = false
        var reportedRejections: Set<Int> = []
        /// Logs dropped since the buffer overflowed, while it has not had room again.
        var dropsInOverflow: Int?
        var flushWaiters: [(target: UInt64, continuation: CheckedContinuation<Void, Never>)] = []
        /// Set when shutdown starts: no more waiting between retries.
        var isStopping = false
        var isShutDown = false

        /// Counts logs dropped to make room; the first drop of an overflow returns the line
        /// that reports it.
        mutating func recordDrops(_ count: Int, limits: (count: Int, bytes: Int)) -> String? {
            guard count > 0 else { return nil }
            defer { dropsInOverflow = (dropsInOverflow ?? 0) + count }
            guard dropsInOverflow == nil else { return nil }
            return "buffer full (\(limits.count) logs or \(limits.bytes / 1024) KiB): dropping the oldest logs until there is room"
        }

        /// Once an overflow is over (the buffer at most half full), the line that counts its
        /// drops. Half, not one free slot, so a sustained overflow reports once, not per log.
        mutating func endOverflowIfRelieved() -> String? {
            guard let dropped = dropsInOverflow,
                buffer.count <= buffer.countLimit / 2, buffer.byteCount <= buffer.byteLimit / 2
            else { return nil }
            dropsInOverflow = nil
            return "buffer has room again: \(dropped) log\(dropped == 1 ? " was" : "s were") dropped"
        }

        func isSettled(through target: UInt64) -> Bool {
            (buffer.firstSequence.map { $0 > target } ?? true) && inFlight.allSatisfy { $0 > target }
        }

        mutating func readyFlushWaiters() -> [CheckedContinuation<Void, Never>] {
            let waiters = flushWaiters
            flushWaiters = waiters.filter { !isSettled(through: $0.target) }
            return waiters.filter { isSettled(through: $0.target) }.map(\.continuation)
        }
    }

    private enum Step {
        case next
        case probe(after: TimeInterval)
        case stop
    }

    private let configuration: DevSeeLoggerConfiguration
    private let builder: PayloadBuilder
    private let uploader: Uploader
    private let state: Locked<State>

    init(configuration: DevSeeLoggerConfiguration, endpoint: DevSeeEndpoint) {
        self.configuration = configuration
        builder = PayloadBuilder(appId: configuration.appId, maxBodyBytes: configuration.maxBodyBytes, redactor: configuration.redactor)
        uploader = Uploader(
            session: Uploader.makeSession(maxConcurrentUploads: configuration.maxConcurrentUploads, timeout: configuration.uploadTimeout)
        )
        state = Locked(State(
            buffer: LogBuffer(countLimit: configuration.bufferLimit, byteLimit: configuration.bufferByteLimit),
            endpoint: endpoint,
            uploadURL: endpoint.url(path: configuration.apiPath)
        ))
    }

    var statistics: DevSeeDeliveryStatistics {
        state.withLock { state in
            var statistics = state.statistics
            statistics.pending = state.buffer.count + state.inFlight.count
            statistics.bufferedBytes = state.buffer.byteCount
            return statistics
        }
    }

    var endpoint: DevSeeEndpoint {
        get { state.withLock { $0.endpoint } }
        set {
            state.withLock { state in
                state.endpoint = newValue
                state.uploadURL = newValue.url(path: configuration.apiPath)
                state.consecutiveFailures = 0
                // A new server deserves a try now, not after the prober's backoff.
                state.isOffline = false
                state.hasProber = false
                startWorkers(&state)
            }
        }
    }

    /// Accepts a log into the buffer and makes sure a worker will upload it. Never waits.
    func accept(_ log: PendingLog, byteCost: Int) {
        let (ready, report) = state.withLock { state -> ([CheckedContinuation<Void, Never>], String?) in
            guard !state.isShutDown else {
                // Too late to ship: counted, not silently lost.
                state.statistics.accepted += 1
                state.statistics.dropped += 1
                return ([], nil)
            }
            state.nextSequence += 1
            let dropped = state.buffer.append(LogBuffer.Item(sequence: state.nextSequence, log: log, byteCost: byteCost))
            state.statistics.accepted += 1
            state.statistics.dropped += dropped
            let report = state.recordDrops(dropped, limits: (state.buffer.countLimit, state.buffer.byteLimit))
            startWorkers(&state)
            return (dropped > 0 ? state.readyFlushWaiters() : [], report)
        }
        ready.forEach { $0.resume() }
        report.map(configuration.diagnostics)
    }

    /// Returns when every log accepted before the call was delivered or given up. While the
    /// server is unreachable, the waiting logs are given up (counted as failed) at once.
    func flush() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let (isDone, report) = state.withLock { state -> (Bool, String?) in
                let target = state.nextSequence
                if state.isOffline || state.isShutDown {
                    state.statistics.failed += state.buffer.removeAll(through: target)
                }
                let report = state.endOverflowIfRelieved()
                if state.isSettled(through: target) { return (true, report) }
                state.flushWaiters.append((target, continuation))
                return (false, report)
            }
            report.map(configuration.diagnostics)
            if isDone { continuation.resume() }
        }
    }

    /// Delivers what the server takes without further waiting (a log that fails is given up
    /// rather than retried after a backoff), then stops every worker and, once they have
    /// ended, the upload session. Logs that arrive later are counted as dropped.
    func shutdown() async {
        let sleeping = state.withLock { state -> [Task<Void, Never>] in
            state.isStopping = true
            return Array(state.workers.values)
        }
        // Cancelling ends a worker's backoff sleep at once; the worker itself goes on.
        sleeping.forEach { $0.cancel() }
        await flush()
        let (workers, ready) = state.withLock { state -> ([Task<Void, Never>], [CheckedContinuation<Void, Never>]) in
            state.isShutDown = true
            state.statistics.failed += state.buffer.removeAll(through: .max)
            return (Array(state.workers.values), state.readyFlushWaiters())
        }
        ready.forEach { $0.resume() }
        for worker in workers { await worker.value }
        uploader.session.finishTasksAndInvalidate()
    }

    private func startWorkers(_ state: inout State) {
        guard !state.isShutDown, !state.isOffline else { return }
        let wanted = min(max(1, configuration.maxConcurrentUploads) - state.workers.count, state.buffer.count)
        for _ in 0..<max(0, wanted) {
            state.nextWorkerID += 1
            let id = state.nextWorkerID
            state.workers[id] = Task.detached { [self] in await runWorker(id: id) }
        }
    }

    private func runWorker(id: UInt64) async {
        var isProber = false
        while let item = nextItem(worker: id, isProber: isProber) {
            switch await deliver(item, worker: id, isProber: isProber) {
            case .next:
                isProber = false
            case .probe(let delay):
                isProber = true
                await sleep(delay)
            case .stop:
                return
            }
        }
    }

    /// The next log for a worker, or `nil` after unregistering the worker.
    private func nextItem(worker id: UInt64, isProber: Bool) -> LogBuffer.Item? {
        let (item, report) = state.withLock { state -> (LogBuffer.Item?, String?) in
            if !state.isShutDown, !state.isOffline || isProber, let item = state.buffer.popFirst() {
                state.inFlight.insert(item.sequence)
                return (item, state.endOverflowIfRelieved())
            }
            state.workers[id] = nil
            if isProber {
                // Nothing left to probe with: the next log finds out afresh.
                state.isOffline = false
                state.hasProber = false
            }
            return (nil, state.endOverflowIfRelieved())
        }
        report.map(configuration.diagnostics)
        return item
    }

    private func deliver(_ taken: LogBuffer.Item, worker: UInt64, isProber: Bool) async -> Step {
        var item = taken
        let payload = item.payload ?? Data(builder.payload(for: item.log.entry(maxBodyBytes: configuration.maxBodyBytes)))
        item.payload = payload
        while true {
            let (url, isShutDown) = state.withLock { ($0.uploadURL, $0.isShutDown) }
            guard !isShutDown else {
                // The session is being invalidated: posting now could crash on Apple platforms.
                settle(item) { $0.failed += 1 }
                return .next
            }
            let outcome = await uploader.post(payload, to: url, timeout: configuration.uploadTimeout)
            switch outcome {
            case .delivered:
                settle(item) { $0.delivered += 1 }
                markReachable()
                return .next
            case .rejected(let status, let reason):
                settle(item) { $0.rejected += 1 }
                markReachable()
                reportRejection(status: status, reason: reason)
                return .next
            case .unreachable(let reason):
                item.attempts += 1
                return wentUnreachable(with: item, reason: reason, worker: worker, isProber: isProber)
            case .serverError, .tooManyRequests:
                markReachable()
                guard item.attempts < configuration.maxRetries, !state.withLock({ $0.isStopping }) else {
                    settle(item) { $0.failed += 1 }
                    return .next
                }
                item.attempts += 1
                state.withLock { $0.statistics.retried += 1 }
                var delay = backoff(attempt: item.attempts)
                if case .tooManyRequests(let retryAfter?) = outcome {
                    delay = min(retryAfter, configuration.maxBackoff)
                }
                await sleep(delay)
            }
        }
    }

    private func settle(_ item: LogBuffer.Item, _ count: (inout DevSeeDeliveryStatistics) -> Void) {
        let ready = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.inFlight.remove(item.sequence)
            count(&state.statistics)
            return state.readyFlushWaiters()
        }
        ready.forEach { $0.resume() }
    }

    private func wentUnreachable(with item: LogBuffer.Item, reason: String, worker: UInt64, isProber: Bool) -> Step {
        let (step, ready, report) = state.withLock { state -> (Step, [CheckedContinuation<Void, Never>], String?) in
            state.inFlight.remove(item.sequence)
            if item.attempts > configuration.maxRetries {
                state.statistics.failed += 1
            } else if let target = state.flushWaiters.map(\.target).max() {
                // Someone waits for a flush: give up what it waits for rather than make it wait out the outage.
                state.statistics.failed += 1 + state.buffer.removeAll(through: target)
            } else {
                state.statistics.retried += 1
                state.buffer.pushFront(item)
            }
            state.isOffline = true
            state.consecutiveFailures += 1
            let report = state.isReportedUnreachable ? nil : "server at \(state.endpoint) is unreachable (\(reason)); logs are kept in the buffer and retried"
            state.isReportedUnreachable = true
            let step: Step
            if state.hasProber && !isProber {
                state.workers[worker] = nil
                step = .stop
            } else {
                state.hasProber = true
                step = .probe(after: backoff(attempt: state.consecutiveFailures))
            }
            return (step, state.readyFlushWaiters(), report)
        }
        ready.forEach { $0.resume() }
        report.map(configuration.diagnostics)
        state.withLock { $0.endOverflowIfRelieved() }.map(configuration.diagnostics)
        return step
    }

    private func markReachable() {
        let report = state.withLock { state -> String? in
            let wasUnreachable = state.isReportedUnreachable
            state.isOffline = false
            state.hasProber = false
            state.consecutiveFailures = 0
            state.isReportedUnreachable = false
            if wasUnreachable { startWorkers(&state) }
            return wasUnreachable ? "server at \(state.endpoint) is reachable again" : nil
        }
        report.map(configuration.diagnostics)
    }

    private func reportRejection(status: Int, reason: String) {
        let isFirst = state.withLock { $0.reportedRejections.insert(status).inserted }
        if isFirst {
            configuration.diagnostics("the server refused a log with status \(status) (\(reason)); such logs are dropped")
        }
    }

    private func backoff(attempt: Int) -> TimeInterval {
        Backoff(initial: configuration.initialBackoff, maximum: configuration.maxBackoff, jitter: .equal)
            .delay(beforeRetry: attempt)
    }

    private func sleep(_ seconds: TimeInterval) async {
        guard !state.withLock({ $0.isStopping }) else { return }
        try? await Task.sleep(nanoseconds: UInt64(max(0, seconds) * 1_000_000_000))
    }
}
