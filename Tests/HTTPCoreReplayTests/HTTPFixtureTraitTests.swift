import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HTTPCore
import HTTPCoreReplay
import HTTPCoreTesting
import HTTPCoreURLSession
import Testing

/// The Swift Testing trait: one line, and the test's client answers from the fixture beside it.
@Suite struct HTTPFixtureTraitTests {
    @Test(.httpFixture("chrome-devtools", mode: .replay))
    func theTraitReplaysTheNamedFixture() async throws {
        let fixture = try #require(HTTPFixture.current)
        #expect(!fixture.isRecording)
        let client = fixture.client(recordingThrough: URLSessionTransport(session: URLSession(configuration: .ephemeral)))
        let products = try await client.send(HTTPRequest(url: URL(string: "https://api.shop.example.com/v1/products?category=tea&page=2")!))
        #expect(products.statusCode == 200)
        #expect(products.headers[ReplayTransport.replayHeaderName] == "chrome-devtools.har#0")
        #expect(fixture.unansweredCount == 3)
    }
}
