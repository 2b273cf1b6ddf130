import Foundation
import HTTPCore
import HTTPCoreObservation
import HTTPCoreReplay
import HTTPCoreTesting
import XCTest

/// A HAR file in the shape Chrome's DevTools exports (`Fixtures/chrome-devtools.har`: HTTP/2
/// pseudo-headers, `_initiator`, `_transferSize`, `"_error": null`, a base64 image, a
/// `net::ERR_CONNECTION_REFUSED`), replayed.
final class ReplayTransportTests: XCTestCase {
    private let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/chrome-devtools.har")

    private func client(matching: ReplayMatching = ReplayMatching()) throws -> (HTTPTransportClient<ReplayTransport>, ReplayTransport, RecordingObserver) {
        let transport = try ReplayTransport(harFile: file, matching: matching)
        let dispatcher = HTTPEventDispatcher()
        let recorder = RecordingObserver()
        dispatcher.subscribe(recorder)
        return (HTTPTransportClient(transport: transport, dispatcher: dispatcher), transport, recorder)
    }

    func testChromesExportReplaysItsResponsesItsImageAndItsRefusedConnection() async throws {
        let (client, transport, recorder) = try client()
        // The query items in another order match: they are compared as a set.
        let products = try await client.send(HTTPRequest(url: URL(string: "https://api.shop.example.com/v1/products?page=2&category=tea")!))
        XCTAssertEqual(products.statusCode, 200)
        XCTAssertEqual(products.headers["Content-Type"], "application/json; charset=utf-8")
        XCTAssertEqual(String(decoding: products.body, as: UTF8.self), #"{"page":2,"products":[{"id":"TEA-7","name":"Assam","price":7.5},{"id":"TEA-9","name":"Sencha","price":9}]}"#)
        XCTAssertEqual(products.headers[ReplayTransport.replayHeaderName], "chrome-devtools.har#0")

        let cart = try await client.send(HTTPRequest(
            method: .post, url: URL(string: "https://api.shop.example.com/v1/cart/items")!, headers: ["Content-Type": "application/json"],
            body: Data(#"{"qty":2,"sku":"TEA-7"}"#.utf8)
        ))
        XCTAssertEqual(cart.statusCode, 201)
        XCTAssertEqual(cart.headers["Location"], "/v1/cart/items/31")

        let pixel = try await client.send(HTTPRequest(url: URL(string: "https://cdn.shop.example.com/img/pixel.png")!))
        XCTAssertEqual(Array(pixel.body.prefix(8)), [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        XCTAssertEqual(pixel.body.count, 29)

        do {
            _ = try await client.send(HTTPRequest(url: URL(string: "https://reviews.shop.example.com/v1/reviews?sku=TEA-7")!))
            XCTFail("a refused connection was answered")
        } catch let error as HTTPError {
            XCTAssertEqual(error.code, .cannotConnect)
            XCTAssertEqual(error.message, "net::ERR_CONNECTION_REFUSED")
        }
        XCTAssertEqual(transport.unansweredCount, 0)
        let events = try await recorder.waitForTerminalEvents(count: 4)
        XCTAssertEqual(events.filter(\.name.isTerminal).map(\.name.rawValue), [
            "http.request.succeeded", "http.request.succeeded", "http.request.succeeded", "http.request.failed",
        ])
    }

    func testARequestNoEntryAnswersFailsNamingTheClosestEntryAndTheDifference() async throws {
        var matching = ReplayMatching()
        matching.body = .json(ignoring: [])
        let (client, _, _) = try client(matching: matching)
        let failures: [(HTTPRequest, String)] = [
            (
                HTTPRequest(url: URL(string: "https://api.shop.example.com/v1/products?category=tea&page=3")!),
                "no recorded exchange in chrome-devtools.har answers GET https://api.shop.example.com/v1/products; the closest, "
                    + "entry 0, GET https://api.shop.example.com/v1/products, differs: its query item page is 2, this request's is 3"
            ),
            (
                HTTPRequest(
                    method: .post, url: URL(string: "https://api.shop.example.com/v1/cart/items")!, headers: ["Content-Type": "application/json"],
                    body: Data(#"{"sku":"TEA-7","qty":3}"#.utf8)
                ),
                "no recorded exchange in chrome-devtools.har answers POST https://api.shop.example.com/v1/cart/items; the closest, "
                    + "entry 1, POST https://api.shop.example.com/v1/cart/items, differs: its body differs at member qty: 2 there, 3 here"
            ),
            (
                HTTPRequest(method: .delete, url: URL(string: "https://api.shop.example.com/v1/cart/items")!),
                "no recorded exchange in chrome-devtools.har answers DELETE https://api.shop.example.com/v1/cart/items; the closest, "
                    + "entry 1, POST https://api.shop.example.com/v1/cart/items, differs: its method is POST, this request's is DELETE"
            ),
        ]
        for (request, message) in failures {
            do {
                _ = try await client.send(request)
                XCTFail("\(request.method) \(request.url) was answered")
            } catch let error as HTTPError {
                XCTAssertEqual(error.code, .notRecorded)
                XCTAssertEqual(error.message, message)
            }
        }
    }

    func testARequestSentMoreOftenThanRecordedFailsSayingItsEntryAnsweredAlready() async throws {
        let (client, _, _) = try client()
        let url = URL(string: "https://cdn.shop.example.com/img/pixel.png")!
        _ = try await client.send(HTTPRequest(url: url))
        do {
            _ = try await client.send(HTTPRequest(url: url))
            XCTFail("a second request was answered")
        } catch let error as HTTPError {
            XCTAssertEqual(error.code, .notRecorded)
            XCTAssertEqual(
                error.message,
                "no recorded exchange in chrome-devtools.har answers GET https://cdn.shop.example.com/img/pixel.png again: entry 2 matches it and answered an earlier request"
            )
        }
    }

    func testAFileThatBreaksHARsRulesFailsNamingTheField() {
        let cases: [(String, String)] = [
            ("not json", "broken.har: is not JSON"),
            (#"{"log":{}}"#, "broken.har: log.entries: missing"),
            (#"{"log":{"entries":[{"request":{"method":"GET","headers":[]},"response":{"status":200,"headers":[],"content":{}}}]}}"#,
             "broken.har: log.entries[0].request.url: missing"),
            (#"{"log":{"entries":[{"request":{"method":"GET","url":"https://a.example","headers":[]},"response":{"status":"200"}}]}}"#,
             "broken.har: log.entries[0].response.status: is not an integer"),
        ]
        for (text, message) in cases {
            XCTAssertThrowsError(try ReplayTransport(har: Data(text.utf8), name: "broken.har")) { error in
                XCTAssertEqual((error as? HTTPError)?.code, .invalidFixture)
                XCTAssertTrue((error as? HTTPError)?.message?.hasPrefix(message) == true, "\((error as? HTTPError)?.message ?? "")")
            }
        }
    }
}
