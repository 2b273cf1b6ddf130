import Foundation
import HTTPCore
import HTTPCoreURLSession

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Posts one payload to the dev-see server and classifies the answer.
struct Uploader: Sendable {
    enum Outcome: Equatable {
        /// 2xx with a JSON answer: stored.
        case delivered
        /// A 4xx other than 408 and 429, or a 2xx that is not a dev-see answer: never retried.
        case rejected(status: Int, reason: String)
        /// A 5xx or 408: retried.
        case serverError(status: Int)
        /// A 429: retried after `retryAfter` seconds when the server says so.
        case tooManyRequests(retryAfter: TimeInterval?)
        /// No answer: refused, reset, timed out, unreachable. Retried, and the server is
        /// considered unreachable until an upload succeeds.
        case unreachable(reason: String)
    }

    let session: URLSession

    /// A session for uploads only, configured like `URLSessionClient`'s (keep-alive, no
    /// cookies, no cache) with the logger's connection limit and timeout.
    static func makeSession(maxConcurrentUploads: Int, timeout: TimeInterval) -> URLSession {
        let configuration = URLSessionClient.makeDefaultConfiguration()
        configuration.httpMaximumConnectionsPerHost = max(1, maxConcurrentUploads)
        configuration.timeoutIntervalForRequest = max(1, timeout.rounded(.up))
        configuration.timeoutIntervalForResource = max(1, timeout.rounded(.up))
        return URLSession(configuration: configuration)
    }

    func post(_ payload: Data, to url: URL, timeout: TimeInterval) async -> Outcome {
        var request = URLRequest(url: url)
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = payload
        request.timeoutInterval = max(1, timeout.rounded(.up))
        return await withCheckedContinuation { continuation in
            session.dataTask(with: request) { data, response, error in
                continuation.resume(returning: Self.classify(data: data, response: response, error: error, url: url))
            }.resume()
        }
    }

    static func classify(data: Data?, response: URLResponse?, error: (any Error)?, url: URL) -> Outcome {
        if let error {
            let code = (error as? URLError)?.code.rawValue ?? 0
            // An answer that is not HTTP is an error of the server, retried a bounded number of times.
            if HTTPError(urlSessionError: error, url: url) == .invalidResponse { return .serverError(status: 0) }
            return .unreachable(reason: code == URLError.timedOut.rawValue ? "timed out" : "URLError \(code)")
        }
        guard let http = response as? HTTPURLResponse else { return .serverError(status: 0) }
        switch http.statusCode {
        case 200..<300:
            return looksLikeJSONObject(data) ? .delivered : .rejected(status: http.statusCode, reason: "the answer is not a dev-see server's")
        case 429:
            return .tooManyRequests(retryAfter: http.value(forHTTPHeaderField: "Retry-After").flatMap { HTTPResponse.retryAfterSeconds(from: $0) })
        case 408, 500..<600:
            return .serverError(status: http.statusCode)
        default:
            let detail = data.map { String(decoding: $0.prefix(200), as: UTF8.self) } ?? ""
            return .rejected(status: http.statusCode, reason: detail)
        }
    }

    /// Whether an answer is a JSON object, as dev-see's stored entry is, judged by its first
    /// and last bytes: cheap next to parsing an echo of a 64 KiB log, and enough to tell a
    /// dev-see server from an HTML page or a plain-text proxy.
    static func looksLikeJSONObject(_ data: Data?) -> Bool {
        guard let data else { return false }
        let isSpace: (UInt8) -> Bool = { $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }
        return data.first(where: { !isSpace($0) }) == UInt8(ascii: "{") && data.last(where: { !isSpace($0) }) == UInt8(ascii: "}")
    }
}
