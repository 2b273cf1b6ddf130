import Foundation

extension HTTPEvent {
    /// The request of an event, as the client's policy exposes it: a view that redacts each
    /// field the first time it is read, once for every observer and every event of the exchange.
    ///
    /// Reading ``url`` redacts the URL alone, ``headers`` the headers alone; ``method``,
    /// ``scheme``, ``host``, ``port`` and the byte count redact nothing, since the redactor
    /// never masks them. On ``Name/requestCreated`` it is the request as the caller built it;
    /// on the other events, as it went out, with the middlewares' changes.
    public struct Request: Sendable {
        let record: RequestRecord

        /// The request's identifier.
        public var id: HTTPRequest.ID { record.request.id }
        /// The method.
        public var method: HTTPMethod { record.request.method }
        /// The URL, redacted: no userinfo, sensitive query values masked.
        public var url: String { record.exposedURL }
        /// The headers, redacted, including a correlation header the client added.
        public var headers: HTTPHeaders { record.exposedHeaders }
        /// The captured body, redacted and capped; `nil` when the policy omits bodies or the
        /// body is empty.
        public var body: Data? { record.exposedBody.body }
        /// Whether ``body`` was cut at the policy's cap.
        public var isBodyTruncated: Bool { record.exposedBody.isTruncated }
        /// The request's ``/HTTPCore/HTTPRequest/metadata``, redacted like headers.
        public var metadata: [String: String] { record.exposedMetadata }
        /// The URL's scheme, lowercased (`"https"`); `nil` for a URL without one.
        public var scheme: String? { record.request.url.scheme?.lowercased() }
        /// The URL's host, as Foundation's `URL.host` reads it: never the userinfo; `nil` for
        /// a URL without one. Parsed on the first read, once for the events of an exchange
        /// whose middlewares keep its URL.
        public var host: String? { record.host }
        /// The URL's port: the explicit one, else 80 for `http` and `ws` and 443 for `https`
        /// and `wss`; `nil` for other schemes without one.
        public var port: Int? { record.request.url.effectivePort }
        /// The bytes of the body sent. For a streamed body, the bytes the transport took when
        /// the event was emitted: 0 on `started`, all of them on the terminal event.
        public var bodyByteCount: Int { record.bodyByteCount }
        /// Whether the exchange was made with ``/HTTPCore/HTTPClient/send(_:body:receive:isolation:)``,
        /// its bodies streamed.
        public var isStreamed: Bool { record.isStreamed }

        /// Every field, redacted, as one value.
        package var exposed: ExposedRequest { record.exposed }
    }

    /// The response of an event, as the client's policy exposes it: a view that redacts each
    /// field the first time it is read (see ``Request``).
    public struct Response: Sendable {
        let record: ResponseRecord

        /// The numeric status code, as the server sent it.
        public var statusCode: Int { record.response.statusCode }
        /// The status and its class.
        public var status: HTTPResponse.Status { HTTPResponse.Status(code: statusCode) }
        /// The headers, redacted.
        public var headers: HTTPHeaders { record.exposedHeaders }
        /// The captured body, redacted and capped; `nil` when the policy omits bodies or the
        /// body is empty.
        public var body: Data? { record.exposedBody.body }
        /// Whether ``body`` was cut at the policy's cap.
        public var isBodyTruncated: Bool { record.exposedBody.isTruncated }
        /// The final URL after redirects, redacted.
        public var url: String { record.exposedURL }
        /// How the transport reached this response when it followed redirects; `nil` when it
        /// followed none.
        public var redirection: HTTPRedirection? { record.response.redirection }
        /// The bytes of the body received. For a streamed body, those received when the event
        /// was emitted: 0 on `received` (the head), all of them on the terminal event, as many
        /// as arrived before a failure.
        public var bodyByteCount: Int { record.bodyByteCount }

        /// Every field, redacted, as one value.
        package var exposed: ExposedResponse { record.exposed }
    }
}
