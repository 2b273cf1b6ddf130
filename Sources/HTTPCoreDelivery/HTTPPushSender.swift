import Foundation
import HTTPCore
import HTTPCoreObservation
import HTTPCoreConcurrency
import HTTPCoreText

/// Sends each batch as one HTTP `POST` through an ``/HTTPCore/HTTPTransport`` and classifies the
/// answer: the sender of every sink that pushes to an HTTP endpoint.
///
/// Use it with a ``DeliveryQueue``, describing only what is the sink's own: where batches go,
/// the headers they carry, how a batch's body is built and, for a destination whose answers
/// can be told from a stranger's, what a 2xx of its own looks like.
///
/// ```swift
/// let sender = HTTPPushSender<String>(
///     transport: URLSessionTransport(session: session),
///     url: { collector },
///     headers: ["Content-Type": "text/plain; charset=utf-8"],
///     timeout: 10
/// ) { lines in Data(lines.joined(separator: "\n").utf8) }
/// let queue = DeliveryQueue(sender: sender)
/// ```
///
/// Every answer is classified the same way, for every sink:
///
/// | answer | outcome |
/// |---|---|
/// | 2xx | ``DeliveryOutcome/delivered``, unless `verifiesSuccess` says the answer is not the destination's: then rejected with its status and that reason |
/// | 429 | retryable, after its `Retry-After` when it has one |
/// | 408, 5xx | retryable (a `Retry-After` is not read) |
/// | any other status | rejected, with the first 200 bytes of the body, redacted by `redactor`, as the reason |
/// | an answer that is not HTTP (``/HTTPCore/HTTPError/invalidResponse``) | retryable with status 0 |
/// | no answer: refused, reset, timed out, any other error | unreachable, with the error's ``/HTTPCore/HTTPError/typeName`` and the destination's host and port as the reason |
/// | no answer a second after `timeout`, from a transport that does not honour the request's timeout | unreachable (`timeout`) |
///
/// The transport is called directly, never through an observed ``/HTTPCore/HTTPClient``, so shipping
/// emits no ``/HTTPCoreObservation/HTTPEvent``s: an observer that ships through this sender never sees, nor logs,
/// its own pushes.
package struct HTTPPushSender<Item: Sendable>: DeliverySender {
    /// What performs the requests.
    package let transport: any HTTPTransport
    /// The headers of every request (content type and encoding, tenant, authorization).
    package let headers: HTTPHeaders
    /// How long one request may take, in seconds; set as the request's
    /// ``/HTTPCore/HTTPRequest/timeout``, and enforced a second later should the transport not honour it.
    package let timeout: TimeInterval
    /// The sink's redactor, which a refused answer's body passes before its start becomes the
    /// rejection's reason: a destination may echo what it refused, a credential among it, and
    /// the reason is printed with the sink's diagnostics.
    package let redactor: Redactor
    private let url: @Sendable () -> URL
    private let body: @Sendable ([Item]) -> Data
    private let verifiesSuccess: @Sendable (HTTPResponse) -> String?

    /// Creates a sender.
    ///
    /// - Parameters:
    ///   - transport: performs the requests; never an observed client's, so pushes are not
    ///     themselves observed.
    ///   - url: where each request goes, read at each send (retries too), so a destination
    ///     that changes applies from the next send on.
    ///   - headers: the headers of every request.
    ///   - timeout: how long one request may take, in seconds.
    ///   - redactor: the sink's redactor, applied to a refused answer's body before its first
    ///     200 bytes become the rejection's reason.
    ///   - verifiesSuccess: reads a 2xx answer: `nil` when it is the destination's, else why it
    ///     is not (for example a proxy's page), and the batch is then rejected with the
    ///     answer's status, never retried. By default every 2xx is a delivery.
    ///   - body: the request body of a batch of items, oldest first; built once per batch,
    ///     on the queue's workers, and kept for its retries.
    package init(
        transport: any HTTPTransport,
        url: @escaping @Sendable () -> URL,
        headers: HTTPHeaders,
        timeout: TimeInterval,
        redactor: Redactor = .standard,
        verifiesSuccess: @escaping @Sendable (HTTPResponse) -> String? = { _ in nil },
        body: @escaping @Sendable ([Item]) -> Data
    ) {
        self.transport = transport
        self.url = url
        self.headers = headers
        self.timeout = timeout
        self.redactor = redactor
        self.verifiesSuccess = verifiesSuccess
        self.body = body
    }

    /// The body of `items`, built by the sink's `body` closure.
    package func makeBatch(_ items: [Item]) -> Data {
        body(items)
    }

    /// The most bytes of a destination's answer read: an answer is a status and a short text.
    static var maximumAnswerBytes: Int { 1 << 20 }

    /// The most bytes of a refused answer that are redacted for its reason: far more than the
    /// 200 shown, so what the redactor masks whole (a quoted value, a JSON object) is seen whole,
    /// and little enough that a refused batch never costs a large body's redaction.
    static var redactedAnswerBytes: Int { 4096 }

    /// Posts `batch` and classifies the answer; returns within `timeout` plus a second.
    package func send(_ batch: Data) async -> DeliveryOutcome {
        let request = HTTPRequest(method: .post, url: url(), headers: headers, body: batch, timeout: timeout)
        let transport = transport
        do {
            // A second beyond the request's timeout, for a transport that does not honour it.
            let response = try await withDeadline(seconds: timeout + 1) {
                try await transport.performWhole(request, upTo: Self.maximumAnswerBytes)
            }
            return outcome(of: response)
        } catch is DeadlineExceeded {
            return .unreachable(reason: Self.unreachableReason("timeout", url: request.url))
        } catch HTTPError.invalidResponse {
            // An answer that is not HTTP is an error of the destination, retried a bounded number of times.
            return .retryable(status: 0, retryAfter: nil)
        } catch {
            return .unreachable(reason: Self.unreachableReason((error as? HTTPError)?.typeName ?? "transport_error", url: request.url))
        }
    }

    private func outcome(of response: HTTPResponse) -> DeliveryOutcome {
        switch (response.status.kind, response.statusCode) {
        case (.successful, _):
            guard let mismatch = verifiesSuccess(response) else { return .delivered }
            return .rejected(status: response.statusCode, reason: mismatch)
        case (_, 429):
            return .retryable(status: 429, retryAfter: response.retryAfter())
        case (.serverError, _), (_, 408):
            return .retryable(status: response.statusCode, retryAfter: nil)
        default:
            let head = Data(response.body.prefix(Self.redactedAnswerBytes))
            let redacted = redactor.redactedBody(head, contentType: response.headers["Content-Type"], isTruncated: response.body.count > head.count)
            let excerpt = UTF8Text.decode(redacted.prefix(200), isCut: redacted.count > 200) ?? ""
            return .rejected(status: response.statusCode, reason: excerpt.trimmingCharacters(in: .whitespacesAndNewlines))
        }
    }

    /// The failure's stable name and where it happened: host and port only, never a path,
    /// query or credentials.
    private static func unreachableReason(_ typeName: String, url: URL) -> String {
        let target = [url.host, url.port.map(String.init)].compactMap { $0 }.joined(separator: ":")
        return target.isEmpty ? typeName : "\(typeName) at \(target)"
    }
}
