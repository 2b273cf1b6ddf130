import Foundation
import HTTPCore
import HTTPCoreDelivery

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Buffers accepted logs and uploads them, one per request, on the delivery engine.
///
/// ``DeliveryQueue`` does the work (bounded buffer, workers, retries with backoff, offline
/// probing, flush, shutdown); this type fits it to a ``DevSeeLoggerConfiguration``: its
/// limits, its endpoint, its statistics and its diagnostic lines.
final class LogShipper: Sendable {
    private let queue: DeliveryQueue<DevSeeSender>

    init(configuration: DevSeeLoggerConfiguration, endpoint: DevSeeEndpoint) {
        let sender = DevSeeSender(configuration: configuration, endpoint: endpoint)
        var delivery = DeliveryConfiguration()
        delivery.bufferLimit = configuration.bufferLimit
        delivery.bufferByteLimit = configuration.bufferByteLimit
        delivery.batching = .single
        delivery.maximumConcurrentSends = configuration.maxConcurrentUploads
        delivery.maximumRetries = configuration.maxRetries
        delivery.backoff = Backoff(initial: configuration.initialBackoff, maximum: configuration.maxBackoff, jitter: .equal)
        delivery.maximumAge = configuration.maximumLogAge
        delivery.uptimeNanoseconds = configuration.uptimeNanoseconds
        delivery.diagnostics = { configuration.diagnostics(sender.message(for: $0)) }
        queue = DeliveryQueue(sender: sender, configuration: delivery)
    }

    var statistics: DevSeeDeliveryStatistics {
        let counted = queue.statistics
        var statistics = DevSeeDeliveryStatistics()
        statistics.accepted = counted.accepted
        statistics.delivered = counted.delivered
        statistics.dropped = counted.dropped
        statistics.expired = counted.expired
        statistics.rejected = counted.rejected
        statistics.failed = counted.failed
        statistics.retried = counted.retried
        statistics.probes = counted.probes
        statistics.pending = counted.pending
        statistics.bufferedBytes = counted.bufferedBytes
        return statistics
    }

    var endpoint: DevSeeEndpoint {
        get { queue.sender.endpoint }
        set {
            queue.sender.endpoint = newValue
            // A new server deserves a try now, not after the prober's backoff.
            queue.retryNow()
        }
    }

    /// Accepts a log into the buffer and makes sure a worker will upload it. Never waits.
    func accept(_ log: PendingLog, byteCost: Int) {
        queue.enqueue(log, byteCost: byteCost)
    }

    /// Returns when every log accepted before the call was delivered or given up. While the
    /// server is unreachable, the waiting logs are given up (counted as failed) at once.
    func flush() async {
        await queue.flush()
    }

    /// Delivers what the server takes without further waiting, stops every worker and, once
    /// they have ended, the upload session. Logs that arrive later are counted as dropped.
    func shutdown() async {
        await queue.shutdown()
        queue.sender.uploader.session.finishTasksAndInvalidate()
    }
}
