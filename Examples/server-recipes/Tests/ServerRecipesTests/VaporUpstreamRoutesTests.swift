import AsyncHTTPClient
import Foundation
import HTTPCore
import HTTPCoreObservation
import HTTPCoreAsyncHTTPClient
import HTTPCoreLogging
import HTTPCoreLoopback
import HTTPCoreTracing
import InMemoryTracing
import Logging
import Tracing
import Vapor
import VaporRecipe
import XCTest

/// The Vapor recipe's service, live on loopback, calling a loopback upstream through HTTPCore
/// over AsyncHTTPClient: what a caller of the service gets, and the upstream exchange's span
/// and log line.
final class VaporUpstreamRoutesTests: XCTestCase {
    /// The upstream client's AHC, its own tracing off (HTTPCore's span is the one).
    private var ahc: AsyncHTTPClient.HTTPClient!

    override func setUp() {
        ahc = AsyncHTTPClientTransport.makeHTTPClient()
    }

    override func tearDown() async throws {
        try await ahc.shutdown()
    }

    /// Runs `test` with the base URL of the service, live on a loopback port, its upstream
    /// client observed by `dispatcher`.
    private func withService(
        upstream: LoopbackHTTPServer, dispatcher: HTTPEventDispatcher, _ test: (String) async throws -> Void
    ) async throws {
        let client = HTTPTransportClient(
            asyncHTTPClient: ahc, middlewares: [HTTPCoreTracing.TracingMiddleware(tracer: RecipeTracing.tracer)], dispatcher: dispatcher
        )
        let app = try await Application.make(.testing)
        app.middleware.use(Vapor.TracingMiddleware())
        VaporUpstreamRoutes(upstream: client, baseURL: upstream.url("/")).register(on: app)
        try await app.server.start(address: .hostname("127.0.0.1", port: 0))
        do {
            let port = try XCTUnwrap(app.http.server.shared.localAddress?.port)
            try await test("http://127.0.0.1:\(port)")
        } catch {
            await app.server.shutdown()
            try await app.asyncShutdown()
            throw error
        }
        await app.server.shutdown()
        try await app.asyncShutdown()
    }

    func testAJSONCallIsPassedOnWithItsSpanUnderTheIncomingRequestsAndItsIdOnTheLogLine() async throws {
        let tracer = RecipeTracing.tracer
        let upstream = try LoopbackHTTPServer()
        defer { upstream.stop() }
        upstream.route("/items/42") { _ in .json(#"{"id":42}"#, status: 201) }
        let lines = LogLines()
        let dispatcher = HTTPEventDispatcher()
        dispatcher.subscribe(LoggingObserver(logger: Logger(label: "upstream") { _ in RecordingLogHandler(lines: lines) }))

        try await withService(upstream: upstream, dispatcher: dispatcher) { base in
            let response = try await AsyncHTTPClient.HTTPClient.shared.execute(HTTPClientRequest(url: base + "/items/42"), timeout: .seconds(60))
            XCTAssertEqual(response.status.code, 201, "the upstream's status is passed on")
            XCTAssertEqual(response.headers.first(name: "Content-Type"), "application/json")
            let body = try await response.body.collect(upTo: 1024)
            XCTAssertEqual(String(buffer: body), #"{"id":42}"#)
        }
        await dispatcher.flush()

        try assertTheUpstreamCallIsTheIncomingRequestsChild(tracer, upstreamURL: upstream.url("/items/42"), lines: lines)
    }

    func testAProxiedStreamPassesStatusHeadersAndLengthThroughAndEndsTheExchangeWithTheBody() async throws {
        let upstream = try LoopbackHTTPServer()
        defer { upstream.stop() }
        let size = exportSize
        routeExport(on: upstream)
        let (events, ends) = dispatcherRecordingEnds()

        try await withService(upstream: upstream, dispatcher: events) { base in
            let response = try await AsyncHTTPClient.HTTPClient.shared.execute(HTTPClientRequest(url: base + "/export"), timeout: .seconds(60))
            XCTAssertEqual(response.status.code, 206)
            XCTAssertEqual(response.headers.first(name: "Content-Length"), "\(size)")
            XCTAssertEqual(response.headers.first(name: "Content-Type"), "text/csv")
            XCTAssertEqual(response.headers.first(name: "X-Export"), "7")
            let body = try await response.body.collect(upTo: Int(size))
            XCTAssertEqual(Data(buffer: body), Data(LoopbackBodyPattern.chunk(at: 0, count: Int(size))))
        }
        await events.flush()
        XCTAssertEqual(ends.all.map(\.message), ["http.request.succeeded"])
        XCTAssertEqual(ends.all.first?.metadata["bytes"], "\(size)")
    }

    func testAProxiedStreamReachesTheBodyWriterAsAsyncHTTPClientsBuffersWithNoCopyWhileObserved() async throws {
        let upstream = try LoopbackHTTPServer()
        defer { upstream.stop() }
        let size = exportSize
        routeExport(on: upstream)
        let (events, ends) = dispatcherRecordingEnds()

        let copies = try await countingCopies {
            try await withService(upstream: upstream, dispatcher: events) { base in
                let response = try await AsyncHTTPClient.HTTPClient.shared.execute(HTTPClientRequest(url: base + "/export"), timeout: .seconds(60))
                let body = try await response.body.collect(upTo: Int(size))
                XCTAssertEqual(Data(buffer: body), Data(LoopbackBodyPattern.chunk(at: 0, count: Int(size))))
            }
        }
        await events.flush()

        XCTAssertEqual(copies.copied, 0, "no byte is copied between AHC's buffers and Vapor's writer")
        XCTAssertEqual(copies.handedOver, Int(size), "every byte reaches the writer in the buffer AHC delivered")
        XCTAssertEqual(ends.all.first?.metadata["bytes"], "\(size)", "the observer saw every byte")
    }

    func testAnUpstreamHeaderThatIsNotValidHTTPIsAnsweredAsBadGatewayNamingItNotDropped() async throws {
        let upstream = try LoopbackHTTPServer()
        defer { upstream.stop() }
        routeExportWithAnInvalidHeader(on: upstream)
        let (events, _) = dispatcherRecordingEnds()

        try await withService(upstream: upstream, dispatcher: events) { base in
            let response = try await AsyncHTTPClient.HTTPClient.shared.execute(HTTPClientRequest(url: base + "/export"), timeout: .seconds(60))
            XCTAssertEqual(response.status.code, 502)
            let body = try await response.body.collect(upTo: 4096)
            let error = try errorObject(Data(buffer: body))   // Vapor writes its two keys in either order
            XCTAssertEqual(error["error"] as? Bool, true)
            XCTAssertEqual(error["reason"] as? String, invalidUpstreamHeaderReason)
        }
    }
}
