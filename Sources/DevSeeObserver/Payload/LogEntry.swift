import Foundation
import HTTPCore

/// A body as captured for a log: at most `maxBodyBytes` bytes of it, copied, and its size.
struct CapturedBody: Sendable {
    let data: Data
    let totalByteCount: Int
    let contentType: String?
    /// Whether the body was already cut or redacted upstream (by an `HTTPCorePolicy`).
    let isTruncated: Bool

    /// Captures a body, copying at most `limit` bytes so a large body is not kept alive.
    init?(_ body: Data?, contentType: String?, limit: Int) {
        guard let body, !body.isEmpty else { return nil }
        if body.count > limit {
            data = body.prefix(max(0, limit)).withUnsafeBytes { Data($0) }
            isTruncated = true
        } else {
            data = body
            isTruncated = false
        }
        totalByteCount = body.count
        self.contentType = contentType
    }

    init(alreadyCaptured data: Data, totalByteCount: Int, contentType: String?, isTruncated: Bool) {
        self.data = data
        self.totalByteCount = totalByteCount
        self.contentType = contentType
        self.isTruncated = isTruncated
    }
}

/// One HTTP call as the logger captured it: raw (not yet redacted) but bounded in size.
struct LogEntry: Sendable {
    var method: String?
    var url: String?
    var responseURL: String?
    var statusCode: Int?
    var startedAt: Date?
    var endedAt: Date
    var durationMilliseconds: Double?
    var requestHeaders: HTTPHeaders
    var responseHeaders: HTTPHeaders
    var requestBody: CapturedBody?
    var responseBody: CapturedBody?
    var error: String?
    var requestID: String
    /// The correlation id and the header it came from (`nil` for an event's: already redacted).
    var correlation: (headerName: String?, value: String)?
    /// The attempt this log describes, when the request was sent more than once; `nil` for a
    /// request sent once.
    var attempt: Int? = nil
    /// The request's metadata (trace id, route template, ...).
    var metadata: [String: String] = [:]
    /// The redactor already applied to every field (an event's policy), or `nil` for raw data.
    var redactedBy: Redactor? = nil

    /// Bytes this entry keeps alive, for the buffer's accounting: the bytes of its strings and
    /// bodies plus what their allocations cost (measured on Linux: about 64 bytes per heap
    /// string or buffer, and 1 KiB for the entry, its buffer slot and its collections).
    var byteCost: Int {
        let allocation = 64
        let fields = requestHeaders.fields + responseHeaders.fields
        let headerBytes = fields.reduce(0) { $0 + $1.name.utf8.count + $1.value.utf8.count + 2 * allocation }
        let strings = [url, responseURL, error, method, correlation?.value].reduce(0) { $0 + ($1?.utf8.count ?? 0) + allocation }
            + metadata.reduce(0) { $0 + $1.key.utf8.count + $1.value.utf8.count + 2 * allocation }
        let bodies = [requestBody, responseBody].reduce(0) { $0 + ($1.map { $0.data.count + allocation } ?? 0) }
        return 1024 + strings + headerBytes + bodies
    }
}

extension LogEntry {
    /// The entry of a terminal or retried event, from what the client's policy exposes.
    init(event: HTTPEvent, maxBodyBytes: Int) {
        let request = event.request
        let response = event.response
        func captured(_ body: Data?, total: Int?, type: String?, truncated: Bool) -> CapturedBody? {
            guard let body, !body.isEmpty else { return nil }
            let limit = max(0, maxBodyBytes)
            let cut = body.count > limit
            return CapturedBody(
                alreadyCaptured: cut ? body.prefix(limit).withUnsafeBytes { Data($0) } : body,
                totalByteCount: max(total ?? body.count, body.count),
                contentType: type,
                isTruncated: truncated || cut
            )
        }
        self.init(
            method: request.method.rawValue,
            url: request.url,
            responseURL: response?.url,
            statusCode: response?.statusCode,
            startedAt: event.startedAt,
            endedAt: event.endedAt ?? event.timestamp,
            durationMilliseconds: event.durationMilliseconds,
            requestHeaders: request.headers,
            responseHeaders: response?.headers ?? [:],
            requestBody: captured(
                request.body, total: event.requestBodyByteCount, type: request.headers["Content-Type"],
                truncated: request.isBodyTruncated
            ),
            responseBody: captured(
                response?.body, total: event.responseBodyByteCount, type: response?.headers["Content-Type"],
                truncated: response?.isBodyTruncated ?? false
            ),
            error: event.error.map { $0 == .cancelled ? "cancelled" : $0.description },
            requestID: event.requestID.description,
            correlation: event.correlationID.map { (headerName: nil, value: $0) },
            attempt: event.name == .requestRetried || event.attempt > 1 ? event.attempt : nil,
            metadata: event.metadata,
            redactedBy: event.redactor
        )
    }
}
