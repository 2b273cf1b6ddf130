import Foundation
import HTTPCore
import HTTPCoreDelivery
import HTTPCoreConcurrency

/// Pushes batches of entries to Loki through an ``HTTPTransport``: the Loki part of the
/// delivery engine.
///
/// The transport is used directly, not through an observed client, so pushes are never
/// themselves observed and logged.
struct LokiSender: DeliverySender {
    let transport: any HTTPTransport
    let pushURL: URL
    let headers: HTTPHeaders
    let compressesBodies: Bool
    let timeout: TimeInterval
    private let body = Locked(LokiPushBody())

    init(configuration: LokiConfiguration, transport: any HTTPTransport) {
        self.transport = transport
        pushURL = Self.pushURL(configuration.url, path: configuration.pushPath)
        var headers: HTTPHeaders = ["Content-Type": "application/json"]
        if configuration.compressesBodies { headers["Content-Encoding"] = "gzip" }
        if let tenant = configuration.tenantID { headers["X-Scope-OrgID"] = tenant }
        if let authorization = configuration.authorization { headers["Authorization"] = authorization.headerValue }
        self.headers = headers
        compressesBodies = configuration.compressesBodies
        timeout = configuration.timeout
    }

    /// `url` itself when it already ends with the push path, else the push path under it.
    static func pushURL(_ url: URL, path: String) -> URL {
        var base = url.absoluteString
        while base.hasSuffix("/") { base.removeLast() }
        guard !url.path.hasSuffix(path) else { return url }
        return URL(string: base + path) ?? url
    }

    func makeBatch(_ entries: [LokiEntry]) -> Data {
        let json = body.withLock { $0.encode(entries) }
        return Data(compressesBodies ? Gzip.compress(json) : json)
    }

    func send(_ batch: Data) async -> DeliveryOutcome {
        let request = HTTPRequest(method: .post, url: pushURL, headers: headers, body: batch, timeout: timeout)
        do {
            // A second beyond the request's timeout, for a transport that does not honour it.
            return Self.classify(try await withDeadline(seconds: timeout + 1) { try await transport.perform(request) })
        } catch is DeadlineExceeded {
            return .unreachable(reason: "timeout")
        } catch HTTPError.invalidResponse {
            // An answer that is not HTTP is an error of the server, retried a bounded number of times.
            return .retryable(status: 0, retryAfter: nil)
        } catch {
            return .unreachable(reason: (error as? HTTPError)?.typeName ?? "transport_error")
        }
    }

    /// Loki answers 204 to a push it stored, 429 when a rate limit is hit, 400 to a push it
    /// refuses (bad labels, out of order, too old, too long).
    static func classify(_ response: HTTPResponse) -> DeliveryOutcome {
        switch response.statusCode {
        case 200..<300:
            return .delivered
        case 429:
            return .retryable(status: 429, retryAfter: response.retryAfter())
        case 408, 500..<600:
            return .retryable(status: response.statusCode, retryAfter: nil)
        default:
            let reason = String(decoding: response.body.prefix(200), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            return .rejected(status: response.statusCode, reason: reason)
        }
    }
}
