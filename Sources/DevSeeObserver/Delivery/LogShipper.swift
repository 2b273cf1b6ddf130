import Foundation
import HTTPCore
import HTTPCoreDelivery
import HTTPCoreURLSession

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Buffers accepted logs and uploads them, one per request, on the delivery engine, in two
/// lanes.
///
/// The viewer lists logs as they arrive, so logs up to ``largeLogBytes`` go one at a time in
/// the order they were accepted (the order their exchanges ended): two uploads at once would
/// let a later log overtake an earlier one. Larger logs go in a lane of their own, so that
/// one slow upload never holds back the small logs behind it; with a
/// ``DevSeeLoggerConfiguration/delivery`` of one concurrent send every log takes the ordered
/// lane. Each lane buffers up to the delivery configuration's `bufferLimit` logs and
/// `bufferByteLimit` bytes.
///
/// ``/HTTPCoreDelivery/DeliveryQueue`` does the work (bounded buffer, workers, retries with backoff, offline
/// probing, flush, shutdown) and ``/HTTPCoreDelivery/HTTPPushSender`` the uploads; this type fits them to a
/// ``DevSeeLoggerConfiguration``: its limits, its transport and its endpoint.
final class LogShipper: Sendable {
    /// Logs retaining more bytes than this take the large lane.
    static let largeLogBytes = 256 * 1024

    /// Logs up to ``largeLogBytes``, sent one at a time in order.
    private let ordered: DeliveryQueue<HTTPPushSender<PendingLog>>
    /// Larger logs, sent beside the ordered lane; `nil` with one upload at a time.
    private let large: DeliveryQueue<HTTPPushSender<PendingLog>>?
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
        let uploads = configuration.delivery.maximumConcurrentSends
        let hasLargeLane = uploads > 1
        var delivery = configuration.delivery
        delivery.batching = .single
        delivery.maximumConcurrentSends = 1
        // A log's redaction and encoding depend on it alone: the next is built during an upload.
        delivery.buildsBatchesAhead = true
        let diagnostics = configuration.diagnostics
        delivery.diagnostics = { diagnostics($0.diagnostic(source: "DevSeeLogger", items: "log")) }
        ordered = DeliveryQueue(sender: sender, configuration: delivery)
        delivery.maximumConcurrentSends = uploads - 1
        large = hasLargeLane ? DeliveryQueue(sender: sender, configuration: delivery) : nil
    }

    /// A session for uploads only, configured like `URLSessionClient`'s (keep-alive, no
    /// cookies, no cache) with the logger's connection limit and timeout.
    private static func makeSession(_ configuration: DevSeeLoggerConfiguration) -> URLSession {
        let session = URLSessionClient.makeDefaultConfiguration()
        let timeout = max(1, configuration.uploadTimeout.rounded(.up))
        session.httpMaximumConnectionsPerHost = max(1, configuration.delivery.maximumConcurrentSends)
        session.timeoutIntervalForRequest = timeout
        session.timeoutIntervalForResource = timeout
        return URLSession(configuration: session)
    }

    /// Both lanes' counters, added up.
    var statistics: DeliveryStatistics {
        large.map { ordered.statistics.adding($0.statistics) } ?? ordered.statistics
    }

    var endpoint: DevSeeEndpoint {
        get { destination.endpoint }
        set {
            destination.endpoint = newValue
            // A new server deserves a try now, not after the prober's backoff.
            ordered.retryNow()
            large?.retryNow()
        }
    }

    /// Accepts a log into the buffer and makes sure a worker will upload it. Never waits.
    func accept(_ log: PendingLog, byteCost: Int) {
        if let large, byteCost > Self.largeLogBytes {
            large.enqueue(log, byteCost: byteCost)
        } else {
            ordered.enqueue(log, byteCost: byteCost)
        }
    }

    /// Returns when every log accepted before the call was delivered or given up. While the
    /// server is unreachable it returns at once, the waiting logs kept for when it is back.
    func flush() async {
        async let largeFlushed: Void = large?.flush() ?? ()
        await ordered.flush()
        await largeFlushed
    }

    /// Delivers what the server takes without further waiting, stops every worker and, once
    /// they have ended, the shipper's own session. Logs that arrive later are dropped,
    /// counted and reported.
    func shutdown() async {
        async let largeShutDown: Void = large?.shutdown() ?? ()
        await ordered.shutdown()
        await largeShutDown
        ownedSession?.finishTasksAndInvalidate()
    }
}
