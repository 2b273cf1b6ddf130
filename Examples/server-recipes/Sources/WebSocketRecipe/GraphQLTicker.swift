import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdWebSocket
import Logging
import ServiceLifecycle

/// A graphql-ws server for the recipe: `/graphql` takes a `connection_init` whose `authToken` is
/// the one it was given, then answers each subscription with `count` ticks
/// (`{"tick": 1}`, …) and completes it. Any other token is closed with 4403.
public struct GraphQLTicker: Sendable {
    /// The token it accepts.
    public let token: String
    /// The ticks per subscription.
    public let count: Int

    /// A server accepting `token`, sending `count` ticks per subscription.
    public init(token: String, count: Int = 3) {
        self.token = token
        self.count = count
    }

    /// Adds the `/graphql` WebSocket route to `router`.
    public func add(to router: Router<BasicWebSocketRequestContext>) {
        router.ws("/graphql") { request, _ in
            guard request.headers[.secWebSocketProtocol]?.contains("graphql-transport-ws") == true else { return .dontUpgrade }
            return .upgrade([.secWebSocketProtocol: "graphql-transport-ws"])
        } onUpgrade: { inbound, outbound, _ in
            for try await message in inbound.messages(maxSize: 1 << 20) {
                guard case .text(let text) = message,
                    let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any] else { continue }
                switch object["type"] as? String {
                case "connection_init":
                    guard (object["payload"] as? [String: Any])?["authToken"] as? String == token else {
                        try await outbound.close(.unknown(4403), reason: "Forbidden")
                        return
                    }
                    try await outbound.write(.text(#"{"type":"connection_ack"}"#))
                case "subscribe":
                    let id = object["id"] as? String ?? ""
                    for tick in 1...count {
                        try await outbound.write(.text(#"{"id":"\#(id)","payload":{"data":{"tick":\#(tick)}},"type":"next"}"#))
                    }
                    try await outbound.write(.text(#"{"id":"\#(id)","type":"complete"}"#))
                default:
                    continue
                }
            }
        }
    }

    /// Serves the route on a free port of 127.0.0.1 while `body` runs with its `ws` URL, then
    /// shuts the server down gracefully.
    ///
    /// - Parameter body: What to do while the server runs, given its `/graphql` URL.
    /// - Returns: What `body` returned.
    /// - Throws: What `body` or the server threw.
    public func serving<Result: Sendable>(_ body: @Sendable (URL) async throws -> Result) async throws -> Result {
        let router = Router(context: BasicWebSocketRequestContext.self)
        add(to: router)
        let (ports, port) = AsyncStream.makeStream(of: Int.self)
        let app = Application(
            router: Router(),
            server: .http1WebSocketUpgrade(webSocketRouter: router),
            configuration: .init(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { channel in port.yield(channel.localAddress?.port ?? 0) }
        )
        let group = ServiceGroup(services: [app], gracefulShutdownSignals: [], logger: Logger(label: "graphql-ticker"))
        return try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask {
                defer { port.finish() }
                try await group.run()
            }
            var running = ports.makeAsyncIterator()
            guard let listening = await running.next() else {
                // It stopped before it listened: its error, if it threw one.
                try await tasks.waitForAll()
                throw CancellationError()
            }
            do {
                let result = try await body(URL(string: "ws://127.0.0.1:\(listening)/graphql")!)
                await group.triggerGracefulShutdown()
                try await tasks.waitForAll()
                return result
            } catch {
                await group.triggerGracefulShutdown()
                throw error
            }
        }
    }
}
