import Dispatch
import Foundation
import HTTPCore
import HTTPCoreObservation
import HTTPCoreConcurrency
import HTTPCoreTesting
import XCTest

final class HTTPErrorTests: XCTestCase {
    private let url = URL(string: "https://api.example.com/users")!

    private func client(_ transport: MockTransport) -> HTTPTransportClient<MockTransport> {
        HTTPTransportClient(transport: transport, dispatcher: HTTPEventDispatcher())
    }

    func testTypeNamesAreStableAndNeverTheMessage() {
        XCTAssertEqual(HTTPError.cancelled.typeName, "cancelled")
        XCTAssertEqual(HTTPError.timeout.typeName, "timeout")
        XCTAssertEqual(HTTPError.invalidResponse.typeName, "invalid_response")
        XCTAssertEqual(HTTPError.transport(.cannotConnect, message: "refused token=S3CR3T").typeName, "cannot_connect")
        XCTAssertEqual(HTTPError.transport(.init("quota_exceeded"), message: "x").typeName, "quota_exceeded")
    }

    func testEveryCodeKeepsItsRawName() {
        let codes: [HTTPError.Code] = [
            .cancelled, .timeout, .invalidResponse, .cannotConnect, .cannotResolveHost, .connectionLost, .notConnected,
            .secureConnectionFailed, .invalidRequest, .tooManyRedirects, .responseTooLarge, .requestBodyFailed, .other,
        ]
        XCTAssertEqual(codes.map(\.rawValue), [
            "cancelled", "timeout", "invalid_response", "cannot_connect", "cannot_resolve_host", "connection_lost", "not_connected",
            "secure_connection_failed", "invalid_request", "too_many_redirects", "response_too_large", "request_body_failed", "other",
        ])
        XCTAssertEqual(HTTPError.Code("response_too_large"), .responseTooLarge)
    }

    func testDescriptionsAreTheOneLineTexts() {
        XCTAssertEqual(HTTPError.cancelled.description, "cancelled")
        XCTAssertEqual(HTTPError.timeout.description, "timed out")
        XCTAssertEqual(HTTPError.invalidResponse.description, "invalid response")
        XCTAssertEqual(HTTPError.transport(.connectionLost, message: "reset").description, "transport error [connection_lost]: reset")
        XCTAssertEqual(HTTPError.transport(.other, message: "").description, "transport error [other]: ")
    }

    func testEqualityComparesCodeAndMessage() {
        XCTAssertEqual(HTTPError.transport(.other, message: "a"), .transport(.other, message: "a"))
        XCTAssertNotEqual(HTTPError.transport(.other, message: "a"), .transport(.other, message: "b"))
        XCTAssertNotEqual(HTTPError.transport(.other, message: "a"), .transport(.connectionLost, message: "a"))
        XCTAssertEqual(HTTPError.timeout.code, .timeout)
        XCTAssertNil(HTTPError.timeout.message)
        XCTAssertEqual(Set([HTTPError.timeout, .timeout, .cancelled]).count, 2)
    }

    private enum Cause: Error, Equatable {
        case first, second
    }

    func testTheUnderlyingErrorIsCarriedButTakesNoPartInEqualityOrHashing() {
        let first = HTTPError.transport(.requestBodyFailed, message: "a", underlyingError: Cause.first)
        let second = HTTPError.transport(.requestBodyFailed, message: "a", underlyingError: Cause.second)
        XCTAssertEqual(first.underlyingError as? Cause, .first)
        XCTAssertEqual(first, second)
        XCTAssertEqual(first, .transport(.requestBodyFailed, message: "a"))
        XCTAssertEqual(Set([first, second]).count, 1)
        XCTAssertNil(HTTPError.transport(.other, message: "a").underlyingError)
        XCTAssertEqual(first.description, "transport error [request_body_failed]: a")
    }

    func testARequestBodysFailureNamesTheBodyTheErrorAndTheBytesButKeepsCancellationAndHTTPErrors() throws {
        let failure = try XCTUnwrap(HTTPError.requestBodyFailure(Cause.first, afterBytes: 20) as? HTTPError)
        XCTAssertEqual(failure, .transport(.requestBodyFailed, message: "request body: the body's sequence threw Cause after 20 bytes"))
        XCTAssertEqual(failure.underlyingError as? Cause, .first)
        XCTAssertTrue(HTTPError.requestBodyFailure(CancellationError(), afterBytes: 3) is CancellationError)
        XCTAssertEqual(HTTPError.requestBodyFailure(HTTPError.timeout, afterBytes: 3) as? HTTPError, .timeout)
        XCTAssertEqual(HTTPError.requestBodyFailure(failure, afterBytes: 99) as? HTTPError, failure)
        let own = HTTPError.transport(.connectionLost, message: "reset")
        XCTAssertEqual(HTTPError.requestBodyFailure(own, afterBytes: 5) as? HTTPError, own)
    }

    func testPatternsMatchByCodeAndByMessageOnlyWhenThePatternHasOne() {
        let lost: any Error = HTTPError.transport(.connectionLost, message: "reset")
        XCTAssertTrue(HTTPError.Code.connectionLost ~= lost)
        XCTAssertFalse(HTTPError.Code.cannotConnect ~= lost)
        XCTAssertTrue(HTTPError.transport(.connectionLost, message: "reset") ~= lost)
        XCTAssertFalse(HTTPError.transport(.connectionLost, message: "closed") ~= lost)
        XCTAssertTrue(HTTPError.timeout ~= (HTTPError.timeout as any Error))
        XCTAssertFalse(HTTPError.timeout ~= lost)
        XCTAssertFalse(HTTPError.Code.other ~= CancellationError())
        XCTAssertFalse(HTTPError.cancelled ~= CancellationError())
    }

    func testSwitchesOverOtherErrorTypesWithTheSameMemberNamesStayUnambiguous() {
        struct PoolError: Error, Equatable {
            let id: Int
            static let cancelled = PoolError(id: 1)
            static let timeout = PoolError(id: 2)
        }
        func name(_ error: PoolError) -> String {
            switch error {
            case .cancelled: "cancelled"
            case .timeout: "timeout"
            default: "other"
            }
        }
        XCTAssertEqual([PoolError.cancelled, .timeout, PoolError(id: 3)].map(name), ["cancelled", "timeout", "other"])
    }

    func testCatchByValueInsideATask() async {
        let client = client(MockTransport(default: .failure(.timeout)))
        let url = url
        let caught = await Task { () -> String in
            do {
                _ = try await client.send(HTTPRequest(url: url))
                return "no error"
            } catch HTTPError.cancelled {
                return "cancelled"
            } catch HTTPError.timeout {
                return "timeout"
            } catch {
                return "something else: \(error)"
            }
        }.value
        XCTAssertEqual(caught, "timeout")
    }

    func testCatchByCodeInsideATaskGroup() async {
        let transport = MockTransport()
        transport.enqueue(
            .failure(.transport(.connectionLost, message: "reset")),
            .failure(.transport(.cannotConnect, message: "refused")),
            .failure(.transport(.connectionLost, message: "closed inside the body"))
        )
        let client = client(transport)
        let url = url
        let outcomes = await withTaskGroup(of: String.self) { group in
            for _ in 0..<3 {
                group.addTask {
                    do {
                        _ = try await client.send(HTTPRequest(url: url))
                        return "no error"
                    } catch HTTPError.Code.connectionLost {
                        return "lost"
                    } catch {
                        return "\(error)"
                    }
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        XCTAssertEqual(outcomes.sorted(), ["lost", "lost", "transport error [cannot_connect]: refused"])
    }

    func testCatchAsHTTPErrorWhereCodeThroughACallbackBridge() async throws {
        let client = client(MockTransport(default: .failure(.transport(.cannotConnect, message: "refused"))))
        let request = HTTPRequest(url: url)
        do {
            _ = try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<HTTPResponse, any Error>) in
                Task {
                    do {
                        continuation.resume(returning: try await client.send(request))
                    } catch {
                        continuation.resume(throwing: error)
                    }
                }
            }
            XCTFail("expected an error")
        } catch let error as HTTPError where error.code == .cannotConnect {
            XCTAssertEqual(error.message, "refused")
        }
    }

    func testCatchByCodeInsideAMiddleware() async throws {
        let transport = MockTransport()
        transport.enqueue(.failure(.transport(.connectionLost, message: "reset")), .status(204))
        let retriesOnce = ClosureMiddleware { request, next in
            do {
                return try await next(request)
            } catch HTTPError.Code.connectionLost {
                return try await next(request)
            }
        }
        let client = HTTPTransportClient(transport: transport, middlewares: [retriesOnce], dispatcher: HTTPEventDispatcher())
        let response = try await client.send(HTTPRequest(url: url))
        XCTAssertEqual(response.statusCode, 204)
    }
}

/// Getting the `HTTPError` back out of a `Task` or a task group, where it arrives as `any Error`.
final class HTTPErrorFromAnyErrorTests: XCTestCase {
    private struct DecodingFailed: Error {}

    func testAnHTTPErrorThrownInATaskComesBackAsItself() async {
        let transport = MockTransport(default: .failure(.transport(.cannotConnect, message: "refused (localhost:1)")))
        let client = HTTPTransportClient(transport: transport, dispatcher: HTTPEventDispatcher())
        let exchange = Task { try await client.send(HTTPRequest(url: URL(string: "http://localhost:1/")!)) }
        do {
            _ = try await exchange.value
            XCTFail("the exchange succeeded")
        } catch {
            XCTAssertEqual(HTTPError(error), .transport(.cannotConnect, message: "refused (localhost:1)"))
        }
    }

    func testCancellationIsCancelledAndOtherErrorsAreNotHTTPErrors() async {
        await withTaskGroup(of: (any Error).self) { group in
            group.addTask { CancellationError() }
            group.addTask { DecodingFailed() }
            var mapped: [String] = []
            for await error in group {
                mapped.append(HTTPError(error).map(\.code.rawValue) ?? "not an HTTPError")
            }
            XCTAssertEqual(mapped.sorted(), ["cancelled", "not an HTTPError"])
        }
    }
}
