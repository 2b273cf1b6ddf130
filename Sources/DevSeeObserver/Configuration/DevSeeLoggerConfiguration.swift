import Foundation
import HTTPCore
import HTTPCoreObservation
import HTTPCoreDelivery

/// Everything a ``DevSeeLogger`` needs: who the app is, where the dev-see server is, and how
/// logs are buffered and delivered.
///
/// ```swift
/// var configuration = DevSeeLoggerConfiguration(appId: "com.example.app")
/// configuration.delivery.bufferByteLimit = 8 * 1024 * 1024
/// DevSeeLoggerCenter.configure(configuration)
/// ```
///
/// The defaults suit an app on a developer's machine: logging on in DEBUG builds only, a
/// 16 MiB buffer, two concurrent uploads, three retries with exponential backoff.
public struct DevSeeLoggerConfiguration: Sendable {
    /// The app's identifier, sent as `appId` with every log; usually the bundle identifier.
    public var appId: String
    /// The dev-see server to use when no paired endpoint is stored; `nil` for the default
    /// `http://127.0.0.1:9090`.
    public var serverURL: URL?
    /// The path logs are posted to.
    public var apiPath: String
    /// The most bytes of each body a log captures and shows, masked (a mask can be longer than
    /// what it replaces); longer bodies are cut there, with one visible marker.
    public var maxBodyBytes: Int
    /// The most server-sent events or JSON lines of one streamed response that get a log of
    /// their own besides their exchange's (``DevSeeObserver`` logs each as it arrives); later
    /// ones are only counted in the exchange's log. 0 by default: a streamed exchange is one
    /// log, whose body starts with the answer the stream carried (`StreamAnswer`),
    /// then its events. Each message log takes a slot of dev-see's ring buffer (1,000 logs),
    /// which one long stream would fill. The client's `HTTPCorePolicy.streamMessages` bounds
    /// them first (1,000 per exchange, 4 KiB each, by default). The messages of a WebSocket
    /// connection, either way, count the same (`WS ↑ #0`, `WS ↓ #1`); its closing row lists
    /// them whatever this is.
    public var maxMessageLogsPerExchange = 0

    /// How many messages of one exchange get a log of their own.
    var messageLogsPerExchange: Int { max(0, maxMessageLogsPerExchange) }
    /// How long one upload may take, in seconds, before it counts as a timeout.
    public var uploadTimeout: TimeInterval
    /// Buffering, retries and the maximum age of waiting logs, as the delivery engine takes
    /// them; the same shape as `LokiConfiguration.delivery`. Defaults: 10,000
    /// logs or 16 MiB waiting in each lane, two uploads at once, three retries with backoff
    /// from 0.5 s to 30 s, no maximum age.
    ///
    /// dev-see takes one log per upload, so `batching` is ignored, and each log's upload is
    /// built while the one before it is sent (`buildsBatchesAhead`). The viewer lists logs as
    /// they arrive, so logs up to 256 KiB go one at a time, in the order their exchanges
    /// ended; `maximumConcurrentSends` above 1 gives larger logs a lane of their own, with the
    /// remaining uploads and buffer limits of the same size, so that a slow upload never holds
    /// back the small logs behind it. With 1, every log waits its turn in one ordered lane.
    /// Retries follow a 5xx, a 408 or a 429; while the server does not answer at all
    /// (refused, reset, timed out) logs wait in the buffer and one probe at a time finds out
    /// when it is back. Logs that waited longer than `maximumAge` are dropped and counted as
    /// `expired`. Reports go to ``diagnostics``.
    public var delivery = DeliveryConfiguration()
    /// Whether logging is on. Off means inert: no buffering, no network, no tasks.
    /// Defaults to `true` in DEBUG builds and `false` otherwise.
    public var isEnabled: Bool
    /// Whether a connection link may point to a public host. Off by default: a link can
    /// send every API call of the app, bodies included, to another machine.
    public var allowsPublicHosts: Bool
    /// The redaction applied to the calls logged with the manual API
    /// (``DevSeeLogger/log(request:response:responseBody:requestBody:error:startedAt:endedAt:)``
    /// and ``DevSeeLogger/logCompleted(token:request:response:responseBody:requestBody:error:endedAt:)``,
    /// on any logger, ``DevSeeLoggerCenter/shared`` included) before they leave the process:
    /// their URLs, headers, bodies and error, and their correlation id when it masks the
    /// header the id came from; and to a refusing server's answer before it is reported.
    /// `.standard` by default.
    ///
    /// Exchanges observed through ``DevSeeObserver`` are redacted in one place, by their
    /// client's policy (`HTTPCorePolicy.redactor`): their logs show what the policy exposes,
    /// and this redactor does not pass over them again.
    public var redactor: Redactor
    /// Headers whose value `log` and `logCompleted` report as the log's `correlationId`, the
    /// first one present; redacted like the header's value. Events carry their own (see
    /// `HTTPCorePolicy.reportedCorrelationHeaderNames`).
    public var correlationHeaderNames: [String]
    /// Where a paired endpoint is persisted; `nil` to persist nothing. By default
    /// `UserDefaults.standard` on Apple platforms (the key `dev-see.endpoint.<appId>`) and
    /// elsewhere the file `$XDG_CONFIG_HOME/dev-see/endpoint-<appId>.json` (or under
    /// `~/.config`), written atomically.
    public var endpointStore: (any DevSeeEndpointStore)?
    /// Receives the logger's rare reports, each once per occurrence: the delivery engine's
    /// (server unreachable, back, a log rejected, logs given up or arriving after shutdown) as
    /// reports of `DevSeeLogger` about logs, and ``DevSeeObserver``'s logs never made. By
    /// default ``/HTTPCoreObservation/HTTPDiagnostics/handler``, the process-wide one.
    public var diagnostics: @Sendable (HTTPDiagnostic) -> Void = { HTTPDiagnostics.report($0) }

    /// The endpoint used when neither a stored endpoint nor ``serverURL`` is available.
    package static let defaultServerURL = URL(string: "http://127.0.0.1:9090")!

    /// Creates a configuration with the default delivery settings, logging on in DEBUG builds
    /// only.
    ///
    /// - Parameters:
    ///   - appId: The app's identifier, sent with every log; usually the bundle identifier.
    ///   - serverURL: The dev-see server to use when no paired endpoint is stored; `nil` for
    ///     `http://127.0.0.1:9090`.
    ///   - apiPath: The path logs are posted to.
    ///   - maxBodyBytes: The most bytes of each body a log captures and shows.
    public init(
        appId: String,
        serverURL: URL? = nil,
        apiPath: String = "/api/logs",
        maxBodyBytes: Int = 64 * 1024
    ) {
        self.appId = appId
        self.serverURL = serverURL
        self.apiPath = apiPath
        self.maxBodyBytes = maxBodyBytes
        uploadTimeout = 10
        #if DEBUG
        isEnabled = true
        #else
        isEnabled = false
        #endif
        allowsPublicHosts = false
        redactor = .standard
        correlationHeaderNames = HTTPCorePolicy.defaultReportedCorrelationHeaderNames
        #if canImport(Darwin)
        endpointStore = UserDefaultsEndpointStore(appId: appId)
        #else
        endpointStore = FileEndpointStore(appId: appId)
        #endif
    }
}
