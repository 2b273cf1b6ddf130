import Foundation
import HTTPCore
import HTTPCoreConcurrency
import HTTPCoreDelivery

extension HTTPPushSender where Item == LokiPendingLine {
    /// The Loki part of a push: batches of lines as one push body (gzip-compressed when
    /// configured), posted to the push URL with the tenant and authorization headers.
    /// Everything else is the push sender's; Loki answers 204 to a push it stored, 429 when a
    /// rate limit is hit, 400 to a push it refuses (bad labels, out of order, too old, too
    /// long). The lines of observed events are made by `lines` as their batch is built.
    static func loki(configuration: LokiConfiguration, lines: LokiLineBuilder, transport: any HTTPTransport) -> HTTPPushSender {
        let pushURL = Self.pushURL(configuration.url, path: configuration.pushPath)
        var headers: HTTPHeaders = ["Content-Type": "application/json"]
        if configuration.compressesBodies { headers["Content-Encoding"] = "gzip" }
        if let tenant = configuration.tenantID { headers["X-Scope-OrgID"] = tenant }
        if let authorization = configuration.authorization { headers["Authorization"] = authorization.headerValue }
        let compressesBodies = configuration.compressesBodies
        let body = Locked(LokiPushBody())
        return HTTPPushSender(transport: transport, url: { pushURL }, headers: headers, timeout: configuration.timeout, redactor: configuration.redactor) { items in
            let entries = lines.entries(items)
            let json = body.withLock { $0.encode(entries) }
            return Data(compressesBodies ? Gzip.compress(json) : json)
        }
    }

    /// `url` itself when it already ends with the push path, else the push path under it.
    static func pushURL(_ url: URL, path: String) -> URL {
        var base = url.absoluteString
        while base.hasSuffix("/") { base.removeLast() }
        guard !url.path.hasSuffix(path) else { return url }
        return URL(string: base + path) ?? url
    }
}
