import Foundation
import HTTPCore
import HTTPCoreDelivery

extension HTTPPushSender where Item == PendingLog {
    /// The dev-see part of an upload: one `api_log` per request, posted as JSON to the
    /// destination's server at the time of each upload, and a 2xx counts only when it carries
    /// the JSON object a dev-see server answers with. Everything else is the push sender's.
    static func devSee(
        configuration: DevSeeLoggerConfiguration,
        destination: DevSeeDestination,
        transport: any HTTPTransport
    ) -> HTTPPushSender {
        let builder = PayloadBuilder(appId: configuration.appId, redactor: configuration.redactor)
        let maxBodyBytes = configuration.maxBodyBytes
        let maxMessageLogs = configuration.messageLogsPerExchange
        return HTTPPushSender(
            transport: transport,
            url: { destination.uploadURL },
            headers: ["Content-Type": "application/json"],
            timeout: configuration.uploadTimeout,
            redactor: configuration.redactor,
            verifiesSuccess: { answer in looksLikeJSONObject(answer.body) ? nil : "the answer is not a dev-see server's" }
        ) { logs in
            // Batches hold one log: dev-see takes one `api_log` per request.
            Data(builder.payload(for: logs[0].entry(maxBodyBytes: maxBodyBytes, maxMessageLogs: maxMessageLogs)))
        }
    }

    /// Whether an answer is a JSON object, as dev-see's stored entry is, judged by its first
    /// and last bytes: cheap next to parsing an echo of a 64 KiB log, and enough to tell a
    /// dev-see server from an HTML page or a plain-text proxy.
    static func looksLikeJSONObject(_ data: Data) -> Bool {
        let isSpace: (UInt8) -> Bool = { $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }
        return data.first(where: { !isSpace($0) }) == UInt8(ascii: "{") && data.last(where: { !isSpace($0) }) == UInt8(ascii: "}")
    }
}
