import Foundation

extension HTTPTransportClient {
    /// The readings of the policy's interpreters for `request` as it went out, after the
    /// middlewares (``HTTPCorePolicy/interpreters``): one per interpreter that has something
    /// to say about it; empty without interpreters.
    func readings(for request: HTTPRequest) -> [any HTTPExchangeReading] {
        let interpreters = sharedPolicy.policy.interpreters
        if interpreters.isEmpty { return [] }
        return interpreters.compactMap { $0.reading(for: request) }
    }

    /// Whether this client's exchanges are read by interpreters: the policy has some, and an
    /// observer takes terminal events, which carry what they derive.
    var interprets: Bool {
        !sharedPolicy.policy.interpreters.isEmpty && configuration.dispatcher.hasTerminalEventObservers
    }

    /// What the interpreters derive from a buffered call's `request` and its whole `response`
    /// (or its `error`), read when a sink first asks.
    func bufferedAttachments(_ request: RequestRecord, response: HTTPResponse?, error: HTTPError?) -> [any HTTPExchangeAttachment] {
        Self.finish(readings(for: request.request), request: request, response: response, error: error)
    }

    /// What `readings` derived from the exchange of `request`, which ended with `response` (a
    /// streamed call's head) or `error`.
    static func finish(
        _ readings: [any HTTPExchangeReading], request: RequestRecord, response: HTTPResponse?, error: HTTPError?
    ) -> [any HTTPExchangeAttachment] {
        if readings.isEmpty { return [] }
        return readings.compactMap { $0.finish(request: request.request, response: response, error: error, policy: request.policy) }
    }
}
