import AsyncHTTPClient
import DevSeeObserver
import Foundation
import HTTPCore
import HTTPCoreObservation
import HTTPCoreAsyncHTTPClient
import HTTPCoreLogging
import HTTPCoreMetrics
import HTTPCoreTracing
import Logging
import NIOCore

/// One variant's client for one cell: the call the callers make, and what has to be settled
/// after a round and shut down after the cell.
struct VariantClient: Sendable {
    /// The variant this client is.
    let variant: ClientVariant
    /// Performs one GET of the cell's URL and returns the body's byte count; throws on a
    /// failure or a status other than 200.
    let perform: @Sendable () async throws -> Int
    /// AHC's client, shut down with this one.
    private let httpClient: AsyncHTTPClient.HTTPClient
    /// The HTTPCore variants' own dispatcher, `nil` for bare.
    private let dispatcher: HTTPEventDispatcher?
    /// The observers' subscriptions, cancelled at shutdown.
    private let subscriptions: [HTTPEventSubscription]
    /// The dev-see logger of the variants that have one, shut down with the client.
    private let devSeeLogger: DevSeeLogger?

    /// The most connections AHC opens to the server: enough for every caller of the largest
    /// cell, so no caller waits for a connection (AHC's default soft limit is 8).
    static let connectionsPerHost = 64
    /// The request timeout of the variants that have one, and bare's deadline.
    static let timeoutSeconds: TimeInterval = 30
    /// The largest body read: the largest response with room to spare.
    static let maximumResponseBytes = 1 << 20

    /// The logger of `LoggingObserver` and of the `hand-written` variants: a no-op handler, so
    /// both pay for deciding not to log and nothing for a backend.
    static let logger = Logger(label: "server-bench", factory: { _ in SwiftLogNoOpLogHandler() })

    /// A fresh client for `variant` calling `url`; the `full` variant's dev-see logger sends to
    /// `devSeeURL`, where nothing listens.
    static func make(_ variant: ClientVariant, url: URL, devSeeURL: URL) -> VariantClient {
        var configuration = AsyncHTTPClient.HTTPClient.Configuration()
        configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = connectionsPerHost
        let http = AsyncHTTPClientTransport.makeHTTPClient(configuration: configuration)
        if variant == .handWritten {
            let perform = HandWrittenGET.make(url.absoluteString, with: http, logger: logger)
            return VariantClient(variant: variant, perform: perform, httpClient: http, dispatcher: nil, subscriptions: [], devSeeLogger: nil)
        }
        if variant == .handWrittenProduction {
            let perform = HandWrittenProductionGET.make(url, with: http, logger: logger)
            return VariantClient(variant: variant, perform: perform, httpClient: http, dispatcher: nil, subscriptions: [], devSeeLogger: nil)
        }
        if variant.isBare {
            return VariantClient(variant: variant, perform: bareGET(url, with: http, addingCPU: variant.addedCPUMicroseconds), httpClient: http, dispatcher: nil, subscriptions: [], devSeeLogger: nil)
        }
        let dispatcher = HTTPEventDispatcher()
        var subscriptions: [HTTPEventSubscription] = []
        var middlewares: [any HTTPMiddleware] = []
        var devSeeLogger: DevSeeLogger?
        let isProduction = variant == .production || variant == .full
        if variant == .metrics || isProduction {
            subscriptions.append(dispatcher.subscribe(MetricsObserver()))
        }
        if variant == .logging || isProduction {
            subscriptions.append(dispatcher.subscribe(LoggingObserver(logger: logger)))
        }
        if variant == .devsee || variant == .full {
            let devSee = makeDevSeeLogger(serverURL: devSeeURL)
            subscriptions.append(dispatcher.subscribe(DevSeeObserver(logger: devSee)))
            devSeeLogger = devSee
        }
        if variant == .middlewares || isProduction {
            middlewares = [TracingMiddleware(), TraceContextMiddleware(), RetryMiddleware()]
        }
        let client = HTTPTransportClient(
            asyncHTTPClient: http,
            maximumStreamedResponseBytes: maximumResponseBytes,
            middlewares: middlewares,
            dispatcher: dispatcher
        )
        let timeout = variant == .httpcoreNoTimeout ? nil : timeoutSeconds
        let perform: @Sendable () async throws -> Int = {
            let response = try await client.send(HTTPRequest(url: url, timeout: timeout))
            guard response.statusCode == 200 else { throw ServerBenchError("status \(response.statusCode)") }
            return response.body.count
        }
        return VariantClient(
            variant: variant, perform: perform, httpClient: http, dispatcher: dispatcher,
            subscriptions: subscriptions, devSeeLogger: devSeeLogger
        )
    }

    /// Bare AHC's GET, as a server developer writes it: a request from the URL string, a
    /// deadline, the body collected with a limit; after `addedMicroseconds` of CPU work on the
    /// caller's thread when not 0.
    private static func bareGET(
        _ url: URL, with http: AsyncHTTPClient.HTTPClient, addingCPU addedMicroseconds: Int
    ) -> @Sendable () async throws -> Int {
        let address = url.absoluteString
        return {
            if addedMicroseconds > 0 { AddedCPU.spin(microseconds: addedMicroseconds) }
            let request = HTTPClientRequest(url: address)
            let response = try await http.execute(request, deadline: .now() + .seconds(Int64(timeoutSeconds)))
            guard response.status == .ok else { throw ServerBenchError("status \(response.status.code)") }
            return try await response.body.collect(upTo: maximumResponseBytes).readableBytes
        }
    }

    /// An enabled dev-see logger sending to `serverURL`, persisting and printing nothing, set
    /// up as the root benchmark's (`BenchmarkEnvironment.makeLogger`).
    private static func makeDevSeeLogger(serverURL: URL) -> DevSeeLogger {
        var configuration = DevSeeLoggerConfiguration(appId: "com.example.server-bench", serverURL: serverURL)
        configuration.isEnabled = true
        configuration.endpointStore = nil
        configuration.diagnostics = { _ in }
        return DevSeeLogger(configuration: configuration)
    }

    /// Waits until the observers handled every event of the requests made so far (nothing
    /// for bare), so their work counts in the round that caused it.
    func settle() async {
        await dispatcher?.flush()
    }

    /// Logs the dev-see logger dropped since it was made, because its buffer was full; 0 when
    /// it kept up, and for the variants without one (observers run inline and drop nothing).
    var droppedEvents: Int {
        devSeeLogger?.statistics.dropped ?? 0
    }

    /// Cancels the subscriptions, shuts the dev-see logger down and AHC's client.
    func shutdown() async throws {
        for subscription in subscriptions {
            subscription.cancel()
        }
        await devSeeLogger?.shutdown()
        try await httpClient.shutdown()
    }
}
