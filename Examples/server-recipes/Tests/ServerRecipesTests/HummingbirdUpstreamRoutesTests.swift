import AsyncHTTPClient
import Foundation
import HTTPCore
import HTTPCoreObservation
import HTTPCoreAsyncHTTPClient
import HTTPCoreLogging
import HTTPCoreLoopback
import HTTPCoreTracing
import Hummingbird
import HummingbirdRecipe
import HummingbirdTesting
import InMemoryTracing
import Logging
import Tracing
import XCTest

/// The recipe's service, live on loopback, calling a loopback upstream through HTTPCore over
/// AsyncHTTPClient: what a caller of the service gets, and the upstream exchange's span and
/// log line.
final class HummingbirdUpstreamRoutesTests: XCTestCase {
    /// The upstream client's AHC, its own tracing off (HTTPCore's span is the one).
    private var ahc: AsyncHTTPClient.HTTPClient!

    override func setUp() {
        ahc = AsyncHTTPClientTransport.makeHTTPClient()
    }

    override func tearDown() async throws {
        try await ahc.shutdown()
    }

    /// The service's application, its upstream client observed by `dispatcher`.
    private func application(upstream: LoopbackHTTPServer, dispatcher: HTTPEventDispatcher) -> some ApplicationProtocol {
        let client = HTTPTransportClient(
            asyncHTTPClient: ahc, middlewares: [TracingMiddleware(tracer: RecipeTracing.tracer)], dispatcher: dispatcher
        )
        let router = Router()
        router.add(middleware: Hummingbird.TracingMiddleware())
        UpstreamRoutes(upstream: client, baseURL: upstream.url("/")).add(to: router)
        return Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
    }

    func testAJSONCallIsPassedOnWithItsSpanUnderTheIncomingRequestsAndItsIdOnTheLogLine() async throws {
        let tracer = RecipeTracing.tracer
        let upstream = try LoopbackHTTPServer()
        defer { upstream.stop() }
        upstream.route("/items/42") { _ in .json(#"{"id":42}"#, status: 201) }
        let lines = LogLines()
        let dispatcher = HTTPEventDispatcher()
        dispatcher.subscribe(LoggingObserver(logger: Logger(label: "upstream") { _ in RecordingLogHandler(lines: lines) }))

        try await application(upstream: upstream, dispatcher: dispatcher).test(.live) { client in
            try await client.execute(uri: "/items/42", method: .get) { response in
                XCTAssertEqual(response.status.code, 201, "the upstream's status is passed on")
                XCTAssertEqual(String(buffer: response.body), #"{"id":42}"#)
                XCTAssertEqual(response.headers[.contentType], "application/json")
            }
        }
        await dispatcher.flush()

        try assertTheUpstreamCallIsTheIncomingRequestsChild(tracer, upstreamURL: upstream.url("/items/42"), lines: lines)
    }

    func testAProxiedStreamPassesStatusHeadersAndLengthThroughAndEndsTheExchangeWithTheBody() async throws {
        let upstream = try LoopbackHTTPServer()
        defer { upstream.stop() }
        let size = exportSize
        routeExport(on: upstream)
        let (events, recorder) = dispatcherRecordingEnds()

        try await application(upstream: upstream, dispatcher: events).test(.live) { client in
            try await client.execute(uri: "/export", method: .get) { response in
                XCTAssertEqual(response.status.code, 206)
                XCTAssertEqual(response.headers[.contentLength], "\(size)")
                XCTAssertEqual(response.headers[.contentType], "text/csv")
                XCTAssertEqual(response.headers[.init("X-Export")!], "7")
                XCTAssertEqual(Int64(response.body.readableBytes), size)
                XCTAssertEqual(Data(buffer: response.body), Data(LoopbackBodyPattern.chunk(at: 0, count: Int(size))))
            }
        }
        await events.flush()
        XCTAssertEqual(recorder.all.map(\.message), ["http.request.succeeded"])
        XCTAssertEqual(recorder.all.first?.metadata["bytes"], "\(size)")
    }

    func testAProxiedStreamReachesTheResponseWriterAsAsyncHTTPClientsBuffersWithNoCopyWhileObserved() async throws {
        let upstream = try LoopbackHTTPServer()
        defer { upstream.stop() }
        let size = exportSize
        routeExport(on: upstream)
        let (events, recorder) = dispatcherRecordingEnds()

        let copies = try await countingCopies {
            try await application(upstream: upstream, dispatcher: events).test(.live) { client in
                try await client.execute(uri: "/export", method: .get) { response in
                    XCTAssertEqual(Data(buffer: response.body), Data(LoopbackBodyPattern.chunk(at: 0, count: Int(size))))
                }
            }
        }
        await events.flush()

        XCTAssertEqual(copies.copied, 0, "no byte is copied between AHC's buffers and Hummingbird's writer")
        XCTAssertEqual(copies.handedOver, Int(size), "every byte reaches the writer in the buffer AHC delivered")
        XCTAssertEqual(recorder.all.first?.metadata["bytes"], "\(size)", "the observer saw every byte")
    }

    func testAnUpstreamHeaderThatIsNotValidHTTPIsAnsweredAsBadGatewayNamingItNotDropped() async throws {
        let upstream = try LoopbackHTTPServer()
        defer { upstream.stop() }
        routeExportWithAnInvalidHeader(on: upstream)
        let (events, _) = dispatcherRecordingEnds()

        try await application(upstream: upstream, dispatcher: events).test(.live) { client in
            try await client.execute(uri: "/export", method: .get) { response in
                XCTAssertEqual(response.status.code, 502)
                let error = try errorObject(Data(buffer: response.body))["error"] as? [String: Any]
                XCTAssertEqual(error?["message"] as? String, invalidUpstreamHeaderReason)
            }
        }
    }
}
