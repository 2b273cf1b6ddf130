import HTTPCore
import HTTPCoreObservation

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
