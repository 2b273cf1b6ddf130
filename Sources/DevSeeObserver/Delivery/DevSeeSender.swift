import Foundation
import HTTPCore
import HTTPCoreDelivery
import HTTPCoreConcurrency

/// Sends one log per upload to the dev-see server: the dev-see part of the delivery engine.
struct DevSeeSender: DeliverySender {
    private struct Destination {
        var endpoint: DevSeeEndpoint
        /// `endpoint` with the API path, built once per endpoint rather than once per upload.
        var uploadURL: URL
    }

    private let configuration: DevSeeLoggerConfiguration
    private let builder: PayloadBuilder
    let uploader: Uploader
    private let destination: Locked<Destination>

    init(configuration: DevSeeLoggerConfiguration, endpoint: DevSeeEndpoint) {
        self.configuration = configuration
        builder = PayloadBuilder(appId: configuration.appId, redactor: configuration.redactor)
        uploader = Uploader(
            session: Uploader.makeSession(maxConcurrentUploads: configuration.maxConcurrentUploads, timeout: configuration.uploadTimeout)
        )
        destination = Locked(Destination(endpoint: endpoint, uploadURL: endpoint.url(path: configuration.apiPath)))
    }

    /// The server logs go to; a change applies from the next upload on.
    var endpoint: DevSeeEndpoint {
        get { destination.withLock { $0.endpoint } }
        nonmutating set {
            destination.withLock { $0 = Destination(endpoint: newValue, uploadURL: newValue.url(path: configuration.apiPath)) }
        }
    }

    func makeBatch(_ logs: [PendingLog]) -> Data {
        // Batches hold one log: dev-see takes one `api_log` per request.
        Data(builder.payload(for: logs[0].entry(maxBodyBytes: configuration.maxBodyBytes)))
    }

    func send(_ payload: Data) async -> DeliveryOutcome {
        let url = destination.withLock { $0.uploadURL }
        switch await uploader.post(payload, to: url, timeout: configuration.uploadTimeout) {
        case .delivered: return .delivered
        case .rejected(let status, let reason): return .rejected(status: status, reason: reason)
        case .serverError(let status): return .retryable(status: status, retryAfter: nil)
        case .tooManyRequests(let retryAfter): return .retryable(status: 429, retryAfter: retryAfter)
        case .unreachable(let reason): return .unreachable(reason: reason)
        }
    }

    /// The engine's report in dev-see's words: logs, and the server by its address.
    func message(for diagnostic: DeliveryDiagnostic) -> String {
        switch diagnostic {
        case .overflowStarted(let count, let bytes):
            "buffer full (\(count) logs or \(bytes / 1024) KiB): dropping the oldest logs until there is room"
        case .overflowEnded(let dropped):
            "buffer has room again: \(dropped) log\(dropped == 1 ? " was" : "s were") dropped"
        case .unreachable(let reason):
            "server at \(endpoint) is unreachable (\(reason)); logs are kept in the buffer and retried"
        case .reachableAgain:
            "server at \(endpoint) is reachable again"
        case .rejected(let status, let reason):
            "the server refused a log with status \(status) (\(reason)); such logs are dropped"
        case .failed(let count, let reason):
            "\(count) log\(count == 1 ? " was" : "s were") given up (\(reason))"
        case .expired(let count):
            "\(count) log\(count == 1 ? "" : "s") waited longer than the maximum age and \(count == 1 ? "was" : "were") dropped"
        }
    }
}
