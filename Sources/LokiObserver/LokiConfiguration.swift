import Foundation
import HTTPCore
import HTTPCoreObservation
import HTTPCoreDelivery

/// Where and how a ``LokiLogger`` pushes to Grafana Loki.
///
/// ```swift
/// var configuration = LokiConfiguration(url: URL(string: "http://127.0.0.1:3100")!, app: "checkout")
/// configuration.environment = "staging"
/// configuration.tenantID = "team-a"
/// let logger = LokiLogger(configuration: configuration)
/// ```
///
/// Defaults: batches of 100 entries or 1 s (whichever first) up to 1 MiB, one push at a
/// time so each stream's entries arrive in order, at most 10,000 entries or 16 MiB waiting,
/// three retries, entries older than an hour dropped and counted.
public struct LokiConfiguration: Sendable {
    /// Loki's base URL, for example `http://loki:3100`, where pushes go to ``pushPath``; or
    /// the push URL itself (ending with ``pushPath``).
    public var url: URL
    /// The push API's path.
    public var pushPath = "/loki/api/v1/push"
    /// The `app` label of every stream.
    public var app: String
    /// The `environment` label, when set.
    public var environment: String?
    /// More labels for every stream. Names that Loki would refuse are rewritten to what it
    /// takes (letters, digits and `_`, not starting with a digit); keep values few, as each
    /// combination is a stream.
    public var extraLabels: [String: String] = [:]
    /// The tenant, sent as `X-Scope-OrgID` (needed when Loki runs multi-tenant).
    public var tenantID: String?
    /// How pushes authenticate, for a Loki behind a gateway.
    public var authorization: LokiAuthorization?
    /// Whether push bodies are gzip-compressed (`Content-Encoding: gzip`).
    public var compressesBodies = false
    /// How each log line is written.
    public var lineFormat = LokiLineFormat.logfmt
    /// The redaction applied to what ``LokiLogger`` logs itself: plain messages and their
    /// metadata (``LokiLogger/log(_:_:metadata:date:)``, the level methods, and the static
    /// ones on ``LokiLogger/shared``), and a refusing Loki's answer before it is reported.
    /// `.standard` by default.
    ///
    /// Exchanges observed through ``LokiObserver`` are redacted in one place, by their
    /// client's policy (`HTTPCorePolicy.redactor`): their lines show what the policy exposes,
    /// and this redactor does not pass over them again.
    public var redactor = Redactor.standard
    /// The most server-sent events or JSON lines of one streamed response that ``LokiObserver``
    /// ships as lines of their own; later ones are only counted in the exchange's line. 0 by
    /// default: a streamed exchange is one line, whose `answer` is what the stream carried
    /// (`StreamAnswer`). The client's `HTTPCorePolicy.streamMessages` bounds them
    /// first (1,000 per exchange, 4 KiB each, by default). The messages of a WebSocket
    /// connection, either way, count the same: at most this many per connection.
    public var maxMessageLinesPerExchange = 0
    /// The time one push may take, in seconds.
    public var timeout: TimeInterval = 10
    /// Buffering, batching, retries and the maximum age, as the delivery engine takes them;
    /// the same shape as `DevSeeLoggerConfiguration.delivery`. Its
    /// `buildsBatchesAhead` is ignored: each stream's times are made increasing from one batch
    /// to the next, so batches are built in the order they are pushed. Reports go to
    /// ``diagnostics``.
    public var delivery: DeliveryConfiguration
    /// Receives the logger's reports, each once per occurrence: the delivery engine's
    /// (overflow, outage, refusal, expiry, lines given up or arriving after shutdown) as
    /// reports of `LokiLogger` about lines, ``LokiObserver``'s included. By default
    /// ``/HTTPCoreObservation/HTTPDiagnostics/handler``, the process-wide one.
    public var diagnostics: @Sendable (HTTPDiagnostic) -> Void = { HTTPDiagnostics.report($0) }

    /// Creates a configuration with the defaults.
    ///
    /// - Parameters:
    ///   - url: Loki's base URL, or its push URL (ending with ``pushPath``).
    ///   - app: The `app` label of every stream.
    public init(url: URL, app: String) {
        self.url = url
        self.app = app
        delivery = DeliveryConfiguration()
        delivery.batching = .init(maximumCount: 100, maximumBytes: 1024 * 1024, maximumDelay: 1)
        delivery.maximumConcurrentSends = 1
        delivery.maximumAge = 3600
    }
}

/// The credentials a ``LokiLogger`` sends with each push.
public enum LokiAuthorization: Sendable, Hashable {
    /// `Authorization: Basic base64(user:password)`, as Grafana Cloud expects.
    case basic(user: String, password: String)
    /// `Authorization: Bearer <token>`.
    case bearer(String)

    /// The `Authorization` header value.
    package var headerValue: String {
        switch self {
        case .basic(let user, let password): "Basic " + Data("\(user):\(password)".utf8).base64EncodedString()
        case .bearer(let token): "Bearer " + token
        }
    }
}
