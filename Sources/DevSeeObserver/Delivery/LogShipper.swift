import Foundation
import HTTPCore
import HTTPCoreDelivery
import HTTPCoreURLSession

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Buffers accepted logs and uploads them, one per request, on the delivery engine.
///
/// ``/HTTPCoreDelivery/DeliveryQueue`` does the work (bounded buffer, workers, retries with backoff, offline
/// probing, flush, shutdown) and ``/HTTPCoreDelivery/HTTPPushSender`` the uploads; this type fits them to a
/// ``DevSeeLoggerConfiguration``: its limits, its transport and its endpoint.
final class LogShipper: Sendable {
    private let queue: DeliveryQueue<HTTPPushSender<PendingLog>>
    private let destination: DevSeeDestination
    /// The session the shipper created for itself when given no transport, invalidated at
    /// shutdown.
    private let ownedSession: URLSession?

    init(configuration: DevSeeLoggerConfiguration, endpoint: DevSeeEndpoint, transport: (any HTTPTransport)?) {
        destination = DevSeeDestination(endpoint: endpoint, apiPath: configuration.apiPath)
        let session = transport == nil ? Self.makeSession(configuration) : nil
        ownedSession = session
        let sender = HTTPPushSender.devSee(
            configuration: configuration,
            destination: destination,
            transport: transport ?? URLSessionTransport(session: session!)
        )
        var delivery = DeliveryConfiguration()
        delivery.bufferLimit = configuration.bufferLimit
        delivery.bufferByteLimit = configuration.bufferByteLimit
        delivery.batching = .single
        delivery.maximumConcurrentSends = configuration.maxConcurrentUploads
        delivery.maximumRetries = configuration.maxRetries
        delivery.backoff = Backoff(initial: configuration.initialBackoff, maximum: configuration.maxBackoff, jitter: .equal)
        delivery.maximumAge = configuration.maximumLogAge
        delivery.uptimeNanoseconds = configuration.uptimeNanoseconds
        let diagnostics = configuration.diagnostics
        delivery.diagnostics = { diagnostics($0.diagnostic(source: "DevSeeLogger", items: "log")) }
        queue = DeliveryQueue(sender: sender, configuration: delivery)
    }

    /// A session for uploads only, configured like `URLSessionClient`'s (keep-alive, no
    /// cookies, no cache) with the logger's connection limit and timeout.
    private static func makeSession(_ configuration: DevSeeLoggerConfiguration) -> URLSession {
        let session = URLSessionClient.makeDefaultConfiguration()
        let timeout = max(1, configuration.uploadTimeout.rounded(.up))
        session.httpMaximumConnectionsPerHost = max(1, configuration.maxConcurrentUploads)
        session.timeoutIntervalForRequest = timeout
        session.timeoutIntervalForResource = timeout
        return URLSession(configuration: session)
    }

    var statistics: DevSeeDeliveryStatistics {
        DevSeeDeliveryStatistics(queue.statistics)
    }

    var endpoint: DevSeeEndpoint {
        get { destination.endpoint }
        set {
            destination.endpoint = newValue
            // A new server deserves a try now, not after the prober's backoff.
            queue.retryNow()
        }
    }

    /// Accepts a log into the buffer and makes sure a worker will upload it. Never waits.
    func accept(_ log: PendingLog, byteCost: Int) {
        queue.enqueue(log, byteCost: byteCost)
    }

    /// Returns when every log accepted before the call was delivered or given up. While the
    /// server is unreachable it returns at once, the waiting logs kept for when it is back.
    func flush() async {
        await queue.flush()
    }

    /// Delivers what the server takes without further waiting, stops every worker and, once
    /// they have ended, the shipper's own session. Logs that arrive later are dropped,
    /// counted and reported.
    func shutdown() async {
        await queue.shutdown()
        ownedSession?.finishTasksAndInvalidate()
    }
}
