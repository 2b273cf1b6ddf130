import Foundation
import HTTPCoreLoopback

/// A server an example talks to, standing in for your API: the example's own code uses only
/// HTTPCore's versioned products, so it can be copied out and pointed at a real URL.
public final class DemoServer: Sendable {
    /// The loopback server itself, for the examples' tests.
    package let server: LoopbackHTTPServer

    init(_ server: LoopbackHTTPServer) {
        self.server = server
    }

    /// The URL of `pathAndQuery` on the server, such as `"/users/42"`.
    public func url(_ pathAndQuery: String) -> URL {
        server.url(pathAndQuery)
    }

    /// Stops the server: open connections are closed, a delayed answer is cut short.
    public func stop() {
        server.stop()
    }
}
