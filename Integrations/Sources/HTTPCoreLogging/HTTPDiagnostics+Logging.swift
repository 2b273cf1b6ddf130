import HTTPCore
import HTTPCoreObservation
import Logging

extension HTTPDiagnostics {
    /// A handler that logs every report to `logger`: at the report's level (`loggerLevel`),
    /// with the report's message, its metadata as logger metadata (`lost`, `reason`, ...) and
    /// its source (`LokiLogger`, `DevSeeLogger`, `HTTPEventDispatcher`,
    /// `HTTPObservabilityService`) as the log's `source`.
    ///
    /// Set it as the process-wide handler once, at launch, and every HTTPCore component that
    /// was not given a handler of its own reports through `logger`:
    ///
    /// ```swift
    /// HTTPDiagnostics.handler = HTTPDiagnostics.logging(to: Logger(label: "httpcore"))
    /// // 2026-... error httpcore: lost=23 lost_after_shutdown=23 [LokiLogger] 23 lines arrived after shutdown and were dropped
    /// ```
    ///
    /// or give it to one component:
    /// `lokiConfiguration.diagnostics = HTTPDiagnostics.logging(to: logger)`. The handler is
    /// as cheap as the log handler: it builds the line's metadata only when `logger` logs at
    /// the report's level.
    public static func logging(to logger: Logger) -> @Sendable (HTTPDiagnostic) -> Void {
        { diagnostic in
            logger.log(
                level: diagnostic.loggerLevel,
                "\(diagnostic.message)",
                metadata: diagnostic.metadata.mapValues { .string($0) },
                source: diagnostic.source
            )
        }
    }
}

extension HTTPDiagnostic {
    /// The swift-log level of the report: `.notice`, `.warning` or `.error`, as its
    /// ``/HTTPCoreObservation/HTTPDiagnostic/level``.
    public var loggerLevel: Logger.Level {
        switch level {
        case .notice: .notice
        case .warning: .warning
        case .error: .error
        }
    }
}
