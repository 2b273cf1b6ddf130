import Foundation
import HTTPCore
import HTTPCoreAsyncHTTPClient
import HTTPCoreConsole
import HTTPCoreHAR
import HTTPCoreObservation
import WebSocketRecipe

// `swift run --package-path Examples/server-recipes websocket-recipe`: a GraphQL subscription
// over graphql-ws, against a Hummingbird server this process starts on loopback, observed as
// one exchange: the console prints the conversation (the connection_init token masked) and
// websocket-recipe.har holds it as Chrome's DevTools writes a WebSocket.

let token = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiI0MiJ9.c2lnbmVkLWJ5LXRoZS1yZWNpcGU"
let har = HARRecorder()
let ahc = AsyncHTTPClientTransport.makeHTTPClient()

// 1. Observers: every message at debug, and a HAR recorder.
HTTPEventDispatcher.shared.subscribe(ConsoleObserver(minimumLevel: .debug, body: .text))
HTTPEventDispatcher.shared.subscribe(har)

// 2. The client a service already has: its WebSocket connections go through swift-websocket,
//    under the same dispatcher and policy (`.debug` keeps message text; the token is masked still).
let client = HTTPTransportClient(asyncHTTPClient: ahc, policy: .debug)

// 3. The subscription: one connection, its messages both ways, its close.
let results = try await GraphQLTicker(token: token).serving { url in
    try await GraphQLSubscription(url: url, token: token).results(of: "subscription { tick }", with: client)
}
print("results:", results.joined(separator: " "))

// 4. Deliver the events, then write the HAR file.
await HTTPEventDispatcher.shared.flush()
try har.write(to: URL(fileURLWithPath: "websocket-recipe.har"))
print("wrote websocket-recipe.har")
try await ahc.shutdown()
