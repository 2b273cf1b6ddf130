import Foundation
import HTTPCore
import HTTPCoreConcurrency

extension LokiLogger {
    private static let sharedLogger = Locked<LokiLogger?>(nil)

    /// The logger the static methods use, set by ``configure(endpoint:app:environment:extraLabels:)``;
    /// `nil` until then.
    public static var shared: LokiLogger? { sharedLogger.withLock { $0 } }

    /// Creates the shared logger, as LokiLogger's `configure` does: `endpoint` is the push URL
    /// (`https://loki.example.com/loki/api/v1/push`) or Loki's base URL. A logger configured
    /// before is shut down (its waiting lines are pushed first).
    ///
    /// ```swift
    /// LokiLogger.configure(endpoint: URL(string: "http://127.0.0.1:3100/loki/api/v1/push")!, app: "MyApp", environment: "production")
    /// LokiLogger.info("User logged in", metadata: ["userId": "123"])
    /// await LokiLogger.stop()
    /// ```
    ///
    /// - Parameters:
    ///   - endpoint: Loki's push URL or base URL.
    ///   - app: The `app` label of every stream.
    ///   - environment: The `environment` label, when set.
    ///   - extraLabels: More labels for every stream.
    /// - Returns: The new shared logger, to subscribe a ``LokiObserver`` with.
    @discardableResult
    public static func configure(
        endpoint: URL, app: String, environment: String? = nil, extraLabels: [String: String] = [:]
    ) -> LokiLogger {
        var configuration = LokiConfiguration(url: endpoint, app: app)
        configuration.environment = environment
        configuration.extraLabels = extraLabels
        return configure(configuration)
    }

    /// Creates the shared logger from a full configuration; see
    /// ``configure(endpoint:app:environment:extraLabels:)``.
    ///
    /// - Parameter configuration: The new shared logger's configuration.
    /// - Returns: The new shared logger, to subscribe a ``LokiObserver`` with.
    @discardableResult
    public static func configure(_ configuration: LokiConfiguration) -> LokiLogger {
        let logger = LokiLogger(configuration: configuration)
        let previous = sharedLogger.withLock { shared in
            defer { shared = logger }
            return shared
        }
        if let previous { Task { await previous.shutdown() } }
        return logger
    }

    /// Logs on the shared logger; does nothing before ``configure(endpoint:app:environment:extraLabels:)``.
    package static func log(level: LokiLevel, message: String, metadata: [String: String] = [:]) {
        shared?.log(level, message, metadata: metadata)
    }

    /// Logs at ``LokiLevel/debug`` on the shared logger; does nothing before
    /// ``configure(endpoint:app:environment:extraLabels:)``.
    ///
    /// - Parameters:
    ///   - message: The line's message.
    ///   - metadata: Keys and values added to the line, redacted.
    public static func debug(_ message: String, metadata: [String: String] = [:]) { log(level: .debug, message: message, metadata: metadata) }
    /// Logs at ``LokiLevel/info`` on the shared logger; does nothing before
    /// ``configure(endpoint:app:environment:extraLabels:)``.
    ///
    /// - Parameters:
    ///   - message: The line's message.
    ///   - metadata: Keys and values added to the line, redacted.
    public static func info(_ message: String, metadata: [String: String] = [:]) { log(level: .info, message: message, metadata: metadata) }
    /// Logs at ``LokiLevel/warning`` on the shared logger (LokiLogger's `warn`); does nothing before
    /// ``configure(endpoint:app:environment:extraLabels:)``.
    ///
    /// - Parameters:
    ///   - message: The line's message.
    ///   - metadata: Keys and values added to the line, redacted.
    public static func warn(_ message: String, metadata: [String: String] = [:]) { log(level: .warning, message: message, metadata: metadata) }
    /// Logs at ``LokiLevel/error`` on the shared logger; does nothing before
    /// ``configure(endpoint:app:environment:extraLabels:)``.
    ///
    /// - Parameters:
    ///   - message: The line's message.
    ///   - metadata: Keys and values added to the line, redacted.
    public static func error(_ message: String, metadata: [String: String] = [:]) { log(level: .error, message: message, metadata: metadata) }

    /// Pushes the shared logger's waiting lines; see ``flush()``.
    public static func flush() async {
        await shared?.flush()
    }

    /// Pushes the shared logger's waiting lines and stops it; see ``shutdown()``. Lines logged
    /// afterwards are counted as dropped until the next `configure`.
    public static func stop() async {
        await shared?.shutdown()
    }
}
