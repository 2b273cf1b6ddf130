import AsyncHTTPClient
import Foundation
@_spi(Transports) import HTTPCore
import HTTPCoreObservation
import HTTPCoreLoopback
import XCTest

@testable import HTTPCoreAsyncHTTPClient

/// A buffered call over AHC collects the body on the event loop (`performBuffered(_:upTo:)`)
/// instead of streaming it to the caller, and must answer exactly as the stream, collected by
/// the client, would.
final class AsyncHTTPClientTransportBufferedShortcutTests: XCTestCase {
    private var server: LoopbackHTTPServer!
    private var ahc: AsyncHTTPClient.HTTPClient!

    /// A transport that offers its one method alone, so a client over it streams and collects.
    private struct StreamOnly: HTTPTransport {
        let transport: AsyncHTTPClientTransport

        func perform(_ request: HTTPRequest, body: HTTPBody?) async throws -> (HTTPResponse.Head, HTTPBody) {
            try await transport.perform(request, body: body)
        }
    }

    /// What a call gave, comparable: the response, or the error's code and message.
    private enum Answer: Equatable {
        case response(status: Int, headers: [HTTPHeaders.Field], body: Data, url: URL, redirection: HTTPRedirection?)
        case failure(HTTPError.Code, String?)
    }

    override func setUpWithError() throws {
        server = try LoopbackHTTPServer()
        ahc = AsyncHTTPClientTransport.makeHTTPClient()
        let bytes = Data((0..<4096).map { UInt8(truncatingIfNeeded: $0) })
        server.route("/declared") { _ in LoopbackResponse(body: bytes) }
        server.route("/chunked") { _ in
            var response = LoopbackResponse(body: bytes)
            response.transfer = .chunked(chunkSize: 1000)
            return response
        }
        server.route("/dripped") { _ in
            // Parts that come in several event-loop turns, appended to the first.
            var response = LoopbackResponse(body: bytes)
            response.transfer = .chunked(chunkSize: 512)
            response.drip = .init(chunks: 4, interval: 0.02)
            return response
        }
        server.route("/none") { _ in LoopbackResponse(status: 204) }
        server.route("/moved") { _ in .redirect(to: "/declared") }
        server.route("/cut") { _ in
            var response = LoopbackResponse(body: bytes)
            response.fault = .closeAfterBodyBytes(100)
            return response
        }
    }

    override func tearDown() async throws {
        server.stop()
        try await ahc.shutdown()
    }

    func testABufferedCallAnswersAsTheCollectedStreamWould() async throws {
        let requests = ["/declared", "/chunked", "/dripped", "/none", "/moved", "/cut"].map { HTTPRequest(url: server.url($0), timeout: 60) }
            + [HTTPRequest(method: .head, url: server.url("/declared"), timeout: 60)]
        var compared = 0
        var failures = Set<String>()
        for clientLimit in [1000, 4096, 64 << 20] {
            for transportLimit in [nil, 1000, 2000, 4096] as [Int?] {
                let transport = AsyncHTTPClientTransport(client: ahc, maximumStreamedResponseBytes: transportLimit)
                let shortcut = HTTPTransportClient(transport: transport, dispatcher: HTTPEventDispatcher(), maximumBufferedResponseBytes: clientLimit)
                let streamed = HTTPTransportClient(
                    transport: StreamOnly(transport: transport), dispatcher: HTTPEventDispatcher(), maximumBufferedResponseBytes: clientLimit
                )
                for request in requests {
                    let label = "\(request.method.rawValue) \(request.url.path), client \(clientLimit), transport \(transportLimit.map(String.init) ?? "none")"
                    let collected = await answer(shortcut, request)
                    let streamedAndCollected = await answer(streamed, request)
                    XCTAssertEqual(collected, streamedAndCollected, label)
                    if case .failure(let code, _) = collected { failures.insert("\(request.url.path) \(code)") }
                    compared += 1
                }
            }
        }
        XCTAssertEqual(compared, 84)
        // The comparison covered each way a buffered call fails here, not only successes.
        XCTAssertEqual(
            failures,
            [
                "/declared response_too_large", "/chunked response_too_large", "/dripped response_too_large", "/moved response_too_large",
                "/cut response_too_large", "/cut connection_lost",
            ]
        )
    }

    func testTheShortcutHoldsToTheLimitItIsGiven() async throws {
        let transport = AsyncHTTPClientTransport(client: ahc)
        for path in ["/declared", "/chunked"] {
            do {
                _ = try await transport.performBuffered(HTTPRequest(url: server.url(path), timeout: 60), upTo: 4095)
                XCTFail("expected response_too_large for \(path)")
            } catch let error as HTTPError {
                XCTAssertEqual(error, HTTPBody.bufferedCallTooLarge(4095), path)
                XCTAssertEqual(
                    error.message,
                    "the response body is over 4095 bytes, the most a buffered call takes "
                        + "(HTTPTransportClient.maximumBufferedResponseBytes); read it with send(_:body:)"
                )
            }
            let whole = try await transport.performBuffered(HTTPRequest(url: server.url(path), timeout: 60), upTo: 4096)
            XCTAssertEqual(whole.body, Data((0..<4096).map { UInt8(truncatingIfNeeded: $0) }), path)
        }
    }

    /// The call's answer, as ``Answer``.
    private func answer(_ client: some HTTPCore.HTTPClient, _ request: HTTPRequest) async -> Answer {
        do {
            let response = try await client.send(request)
            return .response(
                status: response.statusCode, headers: Array(response.headers), body: response.body, url: response.url,
                redirection: response.redirection
            )
        } catch let error as HTTPError {
            return .failure(error.code, error.message)
        } catch {
            return .failure(.other, "\(error)")
        }
    }
}
