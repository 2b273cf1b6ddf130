import Foundation
import HTTPCore
import HTTPCoreDelivery

/// Everything a ``DevSeeLogger`` needs: who the app is, where the dev-see server is, and how
/// logs are buffered and delivered.
///
/// ```swift
/// var configuration = DevSeeLoggerConfiguration(appId: "com.example.app")
/// configuration.bufferByteLimit = 8 * 1024 * 1024
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
    /// Whether server-sent events and JSON lines get logs of their own, besides their
    /// exchange's (off by default): a streamed exchange is one log, whose body starts with the
    /// answer the stream carried (``/HTTPCore/StreamAnswer``), then its events. Each message
    /// log takes a slot of dev-see's ring buffer (1,000 logs), which one long stream would fill.
    public var logsStreamMessages = false
    /// With ``logsStreamMessages``, the most messages of one streamed response that get a log
    /// of their own (``DevSeeObserver`` logs each as it arrives; 10 by default); later ones are
    /// only counted in the exchange's log. The client's `HTTPCorePolicy.streamMessages` bounds
    /// them first (1,000 per exchange, 4 KiB each, by default).
    public var maxMessageLogsPerExchange: Int = 10

    /// How many messages of one exchange get a log of their own: 0 unless
    /// ``logsStreamMessages``.
    var messageLogsPerExchange: Int { logsStreamMessages ? max(0, maxMessageLogsPerExchange) : 0 }
    /// The most logs waiting for delivery in each lane (see ``maxConcurrentUploads``); beyond
    /// it the oldest are dropped and counted.
    public var bufferLimit: Int
    /// The most bytes of logs waiting for delivery; beyond it the oldest are dropped and
    /// counted. Logs over 256 KiB wait in a lane of their own (see ``maxConcurrentUploads``),
    /// with a limit of the same size, so that one can hold a log as large as this.
    public var bufferByteLimit: Int
    /// How many uploads run at once. The viewer lists logs as they arrive, so logs up to
    /// 256 KiB go one at a time, in the order their exchanges ended; the other uploads carry
    /// larger logs, in a lane of their own, so a slow upload never holds back the small logs
    /// behind it. With 1, every log waits its turn in one ordered lane. Default 2.
    public var maxConcurrentUploads: Int
    /// How many times a log is retried after a 5xx, a 408 or a 429. While the server does not
    /// answer at all (refused, reset, timed out) logs are not retried but wait in the buffer,
    /// and one probe at a time finds out when the server is back; see ``maximumLogAge``.
    public var maxRetries: Int
    /// The wait before the first retry, in seconds; it doubles at each retry, with jitter.
    public var initialBackoff: TimeInterval
    /// The longest wait between retries, in seconds; also caps a server's `Retry-After`.
    public var maxBackoff: TimeInterval
    /// How long one upload may take, in seconds, before it counts as a timeout.
    public var uploadTimeout: TimeInterval
    /// Logs that waited longer than this many seconds (for a server that was unreachable) are
    /// dropped and counted as `expired`; `nil`, the default, keeps them until the buffer's
    /// limits push them out.
    public var maximumLogAge: TimeInterval?
    /// The delivery engine's clock, in nanoseconds of system uptime: tests move it to make
    /// logs old without waiting.
    package var uptimeNanoseconds: @Sendable () -> UInt64 = DeliveryConfiguration.systemUptimeNanoseconds
    /// Whether logging is on. Off means inert: no buffering, no network, no tasks.
    /// Defaults to `true` in DEBUG builds and `false` otherwise.
    public var isEnabled: Bool
    /// Whether a connection link may point to a public host. Off by default: a link can
    /// send every API call of the app, bodies included, to another machine.
    public var allowsPublicHosts: Bool
    /// The redaction engine applied to every payload before it leaves the process.
    public var redactor: Redactor
    /// Headers whose value `log` and `logCompleted` report as the log's `correlationId`, the
    /// first one present; redacted like the header's value. Events carry their own (see
    /// `HTTPCorePolicy.reportedCorrelationHeaderNames`).
    public var correlationHeaderNames: [String]
    /// Where a paired endpoint is persisted; `nil` to persist nothing. By default
    /// `UserDefaultsEndpointStore` on Apple platforms and `FileEndpointStore` elsewhere.
    public var endpointStore: (any DevSeeEndpointStore)?
    /// Receives the logger's rare reports, each once per occurrence: the delivery engine's
    /// (server unreachable, back, a log rejected, logs given up or arriving after shutdown) as
    /// reports of `DevSeeLogger` about logs, and ``DevSeeObserver``'s logs never made. By
    /// default ``/HTTPCore/HTTPDiagnostics/handler``, the process-wide one.
    public var diagnostics: @Sendable (HTTPDiagnostic) -> Void = { HTTPDiagnostics.report($0) }

    /// The endpoint used when neither a stored endpoint nor ``serverURL`` is available.
    public static let defaultServerURL = URL(string: "http://127.0.0.1:9090")!

    /// Creates a configuration with default delivery settings.
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
        bufferLimit = 10_000
        bufferByteLimit = 16 * 1024 * 1024
        maxConcurrentUploads = 2
        maxRetries = 3
        initialBackoff = 0.5
        maxBackoff = 30
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
