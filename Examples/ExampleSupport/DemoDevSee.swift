import DevSeeServer
import Foundation

/// A dev-see server in the example's process, standing in for the dev-see app: point
/// `DevSeeLoggerConfiguration.serverURL` at ``baseURL``.
public final class DemoDevSee: Sendable {
    private let receiver: DevSeeReceiver

    /// Starts a receiver on an ephemeral loopback port.
    ///
    /// - Throws: The receiver's error when no port could be bound.
    public init() throws {
        receiver = try DevSeeReceiver()
    }

    /// The URL the logs are posted to.
    public var baseURL: URL { receiver.baseURL }

    /// How many logs it stored.
    public var storedLogCount: Int { receiver.storedLogs.count }

    /// Stops it.
    public func stop() {
        receiver.stop()
    }
}
