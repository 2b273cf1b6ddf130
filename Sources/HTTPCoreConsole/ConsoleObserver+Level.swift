extension ConsoleObserver {
    /// How important an event is; events below the observer's minimum are not printed.
    ///
    /// Its own type rather than `HTTPDiagnostic.Level`, which rates the package's reports of
    /// its own losses (notice, warning, error) and has no level for an exchange that went
    /// well or for a lifecycle step.
    public enum Level: Int, Sendable, Hashable, Comparable, CaseIterable {
        /// Every lifecycle event.
        case debug
        /// Every completed exchange.
        case info
        /// Exchanges answered with 4xx or 5xx, exchanges with a note that reports a failure
        /// under a success status (an LLM stream that ended with the provider's error event),
        /// WebSocket connections closed with an error code (1011, say), cancelled or failed
        /// exchanges.
        case warning
        /// Failed exchanges only.
        case error

        /// Orders levels by importance.
        ///
        /// - Parameters:
        ///   - lhs: A level.
        ///   - rhs: Another level.
        /// - Returns: Whether `lhs` is less important than `rhs`.
        public static func < (lhs: Level, rhs: Level) -> Bool { lhs.rawValue < rhs.rawValue }
    }
}
