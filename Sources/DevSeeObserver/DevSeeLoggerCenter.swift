import Foundation
import HTTPCore
import HTTPCoreObservation
import HTTPCoreConcurrency

/// The process-wide ``DevSeeLogger``, for apps that configure logging once at launch.
///
/// ```swift
/// DevSeeLoggerCenter.configure(DevSeeLoggerConfiguration(appId: "com.example.app"))
/// HTTPEventDispatcher.shared.subscribe(DevSeeObserver())   // uses DevSeeLoggerCenter.shared
///
/// // In the app's URL handler:
/// if DevSeeLoggerCenter.handleURL(url) { return }
/// ```
public enum DevSeeLoggerCenter {
    private static let current = Locked<DevSeeLogger?>(nil)

    /// Replaces the shared logger with one built from `configuration` that uploads through
    /// `transport` (a `URLSession` of its own when `nil`); the previous logger, if any, is
    /// flushed and shut down in the background.
    ///
    /// - Parameters:
    ///   - configuration: The new logger's configuration.
    ///   - transport: What performs the uploads; `nil` for a `URLSession` of the logger's own.
    public static func configure(_ configuration: DevSeeLoggerConfiguration, transport: (any HTTPTransport)? = nil) {
        let logger = DevSeeLogger(configuration: configuration, transport: transport)
        let previous = current.withLock { current -> DevSeeLogger? in
            defer { current = logger }
            return current
        }
        if let previous {
            Task.detached { await previous.shutdown() }
        }
    }

    /// The shared logger; created on first use with the default configuration for this app
    /// (its bundle identifier, or the process name) when ``configure(_:transport:)`` was not called.
    public static var shared: DevSeeLogger {
        current.withLock { current in
            if let current { return current }
            let appId = Bundle.main.bundleIdentifier ?? ProcessInfo.processInfo.processName
            let logger = DevSeeLogger(configuration: DevSeeLoggerConfiguration(appId: appId))
            current = logger
            return logger
        }
    }

    /// Passes a URL to the shared logger; see ``DevSeeLogger/handleURL(_:)``.
    ///
    /// - Parameter url: The URL the app was asked to open.
    /// - Returns: `true` when it was a dev-see connection link, whether it connected or was
    ///   refused, so the app knows it was handled.
    @discardableResult
    public static func handleURL(_ url: URL) -> Bool {
        shared.handleURL(url)
    }
}
