import Foundation
@testable import HTTPCore
@testable import HTTPCoreObservation
import HTTPCoreTesting
import HTTPCoreURLSession
import XCTest
import HTTPCoreConcurrency
import HTTPCoreLoopback

/// `AuthorizationMiddleware` through `URLSessionClient` against a loopback server that
/// accepts one token at a time.
final class AuthorizationMiddlewareTests: XCTestCase {
    private var server: LoopbackHTTPServer!
    /// The token the server accepts; the test rotates it.
    private let accepted = Locked("t1")
    private let fetches = Locked(0)
    private let refreshes = Locked<[String]>([])
    /// How many 401s the server has sent.
    private let refusals = AsyncCondition(0)

    override func setUpWithError() throws {
        server = try LoopbackHTTPServer()
        let accepted = accepted
        let refusals = refusals
        server.route("/me") { request in
            if request.headers["Authorization"] == "Bearer \(accepted.withLock { $0 })" { return .text("me") }
            refusals.update { $0 += 1 }
            return .text("expired", status: 401)
        }
    }

    override func tearDown() {
        server.stop()
    }

    /// A middleware whose provider hands out `t1`, and `t2`, `t3`, ... on each refresh.
    ///
    /// The first fetch ends only once `fetchAfterAsks` requests have asked the middleware for
    /// their credential, and a refresh only once the server has refused
    /// `refreshAfterRefusals` requests. Together they make every one of a burst of requests
    /// wait for the first fetch, so none can ask while the refresh runs and wait for it
    /// instead of being refused (which left the refresh waiting for a refusal that never
    /// came, on two busy cores). Asks are counted where the store decides, not in a middleware
    /// before it: a request counted there could still ask after the fetch ended.
    private func middleware(refreshAfterRefusals: Int = 0, fetchAfterAsks: Int = 0) -> AuthorizationMiddleware {
        let fetches = fetches
        let refreshes = refreshes
        let refusals = refusals
        let asks = AsyncCondition(0)
        return AuthorizationMiddleware(
            credential: {
                fetches.withLock { $0 += 1 }
                _ = try await asks.wait(timeout: 60, until: { $0 >= fetchAfterAsks }) { count in
                    TestTimeout(description: "\(count) of \(fetchAfterAsks) requests asked before the fetch")
                }
                return "t1"
            },
            refresh: { rejected in
                _ = try await refusals.wait(timeout: 60, until: { $0 >= refreshAfterRefusals }) { count in
                    TestTimeout(description: "\(count) of \(refreshAfterRefusals) refusals before the refresh")
                }
                return refreshes.withLock { list -> String in
                    list.append(rejected)
                    return "t\(list.count + 1)"
                }
            },
            credentialAsked: { asks.update { $0 += 1 } }
        )
    }

    private func client(_ middlewares: [any HTTPMiddleware], dispatcher: HTTPEventDispatcher = HTTPEventDispatcher()) -> URLSessionClient {
        URLSessionClient(middlewares: middlewares, dispatcher: dispatcher, policy: .debug)
    }

    func testTheCredentialIsAddedFromTheProviderAndCached() async throws {
        let client = client([middleware()])
        for _ in 0..<3 {
            let response = try await client.send(HTTPRequest(url: server.url("/me")))
            XCTAssertEqual(response.statusCode, 200)
        }
        XCTAssertEqual(server.requests.map { $0.headers["Authorization"] }, Array(repeating: "Bearer t1", count: 3))
        XCTAssertEqual(fetches.withLock { $0 }, 1)
        XCTAssertEqual(refreshes.withLock { $0 }, [])
    }

    func testA401RefreshesOnceAndRetriesWithTheNewCredential() async throws {
        accepted.withLock { $0 = "t2" }
        let dispatcher = HTTPEventDispatcher()
        let recorder = RecordingObserver()
        dispatcher.subscribe(recorder)
        let response = try await client([middleware()], dispatcher: dispatcher).send(HTTPRequest(url: server.url("/me")))

        XCTAssertEqual(response.statusCode, 200)
        XCTAssertEqual(server.requests.map { $0.headers["Authorization"] }, ["Bearer t1", "Bearer t2"])
        XCTAssertEqual(refreshes.withLock { $0 }, ["t1"])
        let events = try await recorder.waitForTerminalEvents(count: 1)
        XCTAssertEqual(events.first { $0.name == .requestRetried }?.response?.statusCode, 401)
        XCTAssertEqual(events.last?.attempt, 2)
        XCTAssertEqual(events.last?.request.headers["Authorization"], Redactor.mask, "what went out, redacted")
    }

    func testAHundredConcurrent401sCauseOneRefresh() async throws {
        accepted.withLock { $0 = "t2" }
        // The fetch waits until all 100 requests asked for the credential, and the refresh
        // until all 100 were refused, so all 100 ask for it at once.
        let client = client([middleware(refreshAfterRefusals: 100, fetchAfterAsks: 100)])
        let url = server.url("/me")
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<100 {
                group.addTask { try await client.send(HTTPRequest(url: url)).statusCode }
            }
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        XCTAssertEqual(statuses, Array(repeating: 200, count: 100))
        XCTAssertEqual(refreshes.withLock { $0 }, ["t1"], "one refresh for every request that got a 401")
        XCTAssertEqual(fetches.withLock { $0 }, 1)
        XCTAssertEqual(server.requests.filter { $0.headers["Authorization"] == "Bearer t2" }.count, 100)
    }

    func testAStreamedBodyIsSentAgainAfterA401OnlyWhenItCanBe() async throws {
        accepted.withLock { $0 = "t2" }
        let client = client([middleware()])
        let once = HTTPBody(AsyncStream { $0.yield(HTTPBody.ByteChunk("once".utf8)); $0.finish() }, length: .known(4))
        let refused = try await client.send(HTTPRequest(method: .post, url: server.url("/me")), body: once) { response, _ in response.statusCode }
        XCTAssertEqual(refused, 401, "a body that can be read once was sent once")
        XCTAssertEqual(refreshes.withLock { $0 }, [], "no refresh for a request that cannot be sent again")

        let replayable = HTTPBody(length: .known(5)) { AsyncStream { $0.yield(HTTPBody.ByteChunk("again".utf8)); $0.finish() } }
        let accepted = try await client.send(HTTPRequest(method: .post, url: server.url("/me")), body: replayable) { response, body in
            (response.statusCode, try await body.collect(upTo: 100))
        }
        XCTAssertEqual(accepted.0, 200)
        XCTAssertEqual(accepted.1, Data("me".utf8))
        XCTAssertEqual(server.requests.map { $0.headers["Authorization"] }, ["Bearer t1", "Bearer t1", "Bearer t2"])
        XCTAssertEqual(server.requests.map { String(decoding: $0.body, as: UTF8.self) }, ["once", "again", "again"])
    }

    func testACredentialTheServerKeepsRefusingGivesThe401NotALoop() async throws {
        accepted.withLock { $0 = "never" }
        let response = try await client([middleware()]).send(HTTPRequest(url: server.url("/me")))
        XCTAssertEqual(response.statusCode, 401)
        XCTAssertEqual(server.requests.map { $0.headers["Authorization"] }, ["Bearer t1", "Bearer t2"])
        XCTAssertEqual(refreshes.withLock { $0 }, ["t1"])
    }

    func testARequestWithItsOwnCredentialIsSentAsItIs() async throws {
        let response = try await client([middleware()])
            .send(HTTPRequest(url: server.url("/me"), headers: ["Authorization": "Bearer t1"]))
        XCTAssertEqual(response.statusCode, 200)
        XCTAssertEqual(fetches.withLock { $0 }, 0)
        XCTAssertEqual(server.requests.map { $0.headers.values(for: "Authorization") }, [["Bearer t1"]])
    }

    func testAFailingProviderFailsTheRequestWithoutItsText() async throws {
        struct VaultLocked: Error, CustomStringConvertible {
            var description: String { "vault locked, last token was hunter2" }
        }
        let auth = AuthorizationMiddleware(credential: { throw VaultLocked() }, refresh: { _ in "unused" })
        do {
            _ = try await client([auth]).send(HTTPRequest(url: server.url("/me")))
            XCTFail("expected an error")
        } catch let error as HTTPError {
            XCTAssertEqual(error, .transport(.credentialUnavailable, message: "the credential provider failed: VaultLocked"))
        }
        XCTAssertTrue(server.requests.isEmpty)
    }

    func testARequestThatStartsDuringARefreshWaitsForItsResult() async throws {
        let gate = AsyncCondition(false)
        let refreshing = AsyncCondition(false)
        let store = CredentialStore(fetch: { "t1" }, refresh: { _ in
            refreshing.update { $0 = true }
            _ = try await gate.wait(timeout: 60, until: { $0 }) { _ in TestTimeout(description: "the gate never opened") }
            return "t2"
        })
        let first = try await store.current()
        XCTAssertEqual(first, "t1")
        let refresh = Task { try await store.refreshed(rejecting: "t1") }
        _ = try await refreshing.wait(timeout: 60, until: { $0 }) { _ in TestTimeout(description: "no refresh started") }
        let late = Task { try await store.current() }
        gate.update { $0 = true }
        let (refreshed, current) = (try await refresh.value, try await late.value)
        XCTAssertEqual(refreshed, "t2")
        XCTAssertEqual(current, "t2", "not t1, which the server just refused")
    }

    func testTheHeaderNameAndSchemeAreConfigurable() async throws {
        let apiKey = AuthorizationMiddleware(headerName: "X-Api-Key", scheme: nil, credential: { "k-123" }, refresh: { _ in "k-456" })
        server.route("/keyed") { request in .text(request.headers["X-Api-Key"] ?? "none") }
        let response = try await client([apiKey]).send(HTTPRequest(url: server.url("/keyed")))
        XCTAssertEqual(String(decoding: response.body, as: UTF8.self), "k-123")
    }
}

struct TestTimeout: Error, CustomStringConvertible {
    let description: String
}
