import AsyncHTTPClient
import Foundation
import HTTPCore
import HTTPCoreObservation
import HTTPCoreAsyncHTTPClient
import HTTPCoreLogging
import HTTPCoreServiceLifecycle
import HTTPCoreTracing
import Hummingbird
import HummingbirdRecipe
import Logging
import ServiceLifecycle

// `swift run --package-path Examples/server-recipes hummingbird-recipe`, with UPSTREAM_URL set
// to the API it calls: `GET /items/{id}` and `GET /export` on http://127.0.0.1:8080.

// 1. The process-wide systems first: logging here, and with swift-otel `OTel.bootstrap` at
//    this point too (its service goes first in the group below, so it stops last).
LoggingSystem.bootstrap(StreamLogHandler.standardOutput)
let logger = Logger(label: "hummingbird-recipe")

// 2. Then the observers and the client. TracingMiddleware reads the tracer at each request,
//    so a client built before the bootstrap still traces.
HTTPEventDispatcher.shared.subscribe(LoggingObserver(logger: Logger(label: "upstream")))
let upstreamURL = URL(string: ProcessInfo.processInfo.environment["UPSTREAM_URL"] ?? "http://127.0.0.1:8081")!
// AHC's own tracing off (`makeHTTPClient`), so each call has one span, HTTPCore's, its URL redacted.
let ahc = AsyncHTTPClientTransport.makeHTTPClient()
let upstream = HTTPTransportClient(asyncHTTPClient: ahc, middlewares: [HTTPCoreTracing.TracingMiddleware(), RetryMiddleware()])

// 3. The routes, under Hummingbird's tracing middleware, so each upstream span is a child of
//    the incoming request's.
let router = Router()
router.add(middleware: Hummingbird.TracingMiddleware())
UpstreamRoutes(upstream: upstream, baseURL: upstreamURL).add(to: router)
let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 8080)), logger: logger)

// 4. A group stops its services in reverse order: the app first, once its requests are done,
//    then HTTPObservabilityService, which delivers the events of those requests to the
//    observers and shuts down the loggers it is given.
let group = ServiceGroup(services: [HTTPObservabilityService(), app], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
try await group.run()
try await ahc.shutdown().get()
