import Foundation
import HTTPCore
import HTTPCoreObservation
import HTTPCoreTesting

/// An interpreter of no vendor, as a user writes one: it reads a response's `X-Cache` and `Age`
/// headers and notes, as `cache`, what the cache said and how old its copy was. `X-Cache: ERROR`
/// (the cache could not revalidate and served what it had) is a failure the status does not show.
package struct CacheInterpreter: HTTPExchangeInterpreter {
    package init() {}

    package func reading(for request: HTTPRequest) -> (any HTTPExchangeReading)? { CacheReading() }
}

package struct CacheReading: HTTPExchangeReading {
    package func finish(request: HTTPRequest, response: HTTPResponse?, error: HTTPError?, policy: HTTPCorePolicy) -> (any HTTPExchangeAttachment)? {
        guard let response, let status = response.headers["X-Cache"] else { return nil }
        return CacheAttachment(status: status, age: Int(response.headers["Age"] ?? "") ?? 0)
    }
}

package struct CacheAttachment: HTTPExchangeAttachment {
    package let status: String
    package let age: Int

    package func note(redactedBy redactor: Redactor) -> HTTPExchangeNote {
        HTTPExchangeNote(
            name: "cache", summary: "\(status), age \(age)", attributes: [.init("status", .string(status)), .init("cache.age", .int(age))],
            reportsFailure: status == "ERROR"
        )
    }
}

extension CacheInterpreter {
    /// The catalog every sink's notes tests get.
    package static let catalogURL = URL(string: "https://api.example.com/catalog")!

    /// Sends a GET of ``catalogURL`` answered `status` with `X-Cache: <cache>` (none when
    /// `cache` is `nil`), `Age: 42` and the body `fresh`, through a client over a
    /// `MockTransport` whose policy is `policy` with this interpreter, observed by
    /// `dispatcher`; returns once `dispatcher` is flushed.
    ///
    /// - Parameters:
    ///   - cache: What the cache says: `HIT`, `MISS`, `ERROR` (a failure the status does not show).
    ///   - status: The response's status.
    ///   - dispatcher: What the sink under test is subscribed to.
    ///   - policy: The client's policy, before the interpreter is added.
    /// - Returns: The request sent.
    /// - Throws: What the client throws; with a mock transport, nothing.
    @discardableResult
    package static func sendCatalogGET(
        cache: String?, status: Int = 200, through dispatcher: HTTPEventDispatcher, policy: HTTPCorePolicy = .debug
    ) async throws -> HTTPRequest {
        var headers: HTTPHeaders = [:]
        if let cache { headers.add(name: "X-Cache", value: cache) }
        headers.add(name: "Age", value: "42")
        let reply = MockTransport.Reply.status(status, body: Data("fresh".utf8), headers: headers)
        let client = HTTPTransportClient(transport: MockTransport(default: reply), dispatcher: dispatcher, policy: policy.interpreting(CacheInterpreter()))
        let request = HTTPRequest(url: catalogURL)
        _ = try await client.send(request)
        await dispatcher.flush()
        return request
    }
}
