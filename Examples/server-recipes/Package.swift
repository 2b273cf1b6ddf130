// swift-tools-version:6.2
import PackageDescription

/// Server recipes: a Hummingbird service and a Vapor one, each calling an upstream through
/// HTTPCore over AsyncHTTPClient, a JSON call and a proxied stream. A package of its own, since the root
/// package has no dependencies; it takes HTTPCore and its integrations from the folders above,
/// as a service takes them by URL and version.
let package = Package(
    name: "server-recipes",
    platforms: [.macOS(.v14)],
    dependencies: [
        .package(name: "HTTPCore", path: "../.."),
        .package(name: "HTTPCoreIntegrations", path: "../../Integrations"),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket.git", from: "2.8.1"),
        .package(url: "https://github.com/hummingbird-project/swift-websocket.git", from: "1.6.2"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-distributed-tracing.git", from: "1.7.3"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/vapor/vapor.git", from: "4.122.3"),
        .package(url: "https://github.com/apple/swift-service-context.git", from: "1.5.1"),
    ],
    targets: [
        .target(
            name: "HummingbirdRecipe",
            dependencies: [
                .product(name: "HTTPCore", package: "HTTPCore"),
                .product(name: "HTTPCoreAsyncHTTPClient", package: "HTTPCoreIntegrations"),
                .product(name: "HTTPCoreHTTPTypes", package: "HTTPCoreIntegrations"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ]
        ),
        .target(
            name: "VaporRecipe",
            dependencies: [
                .product(name: "HTTPCore", package: "HTTPCore"),
                .product(name: "HTTPCoreAsyncHTTPClient", package: "HTTPCoreIntegrations"),
                .product(name: "HTTPCoreHTTPTypes", package: "HTTPCoreIntegrations"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Vapor", package: "vapor"),
                .product(name: "ServiceContextModule", package: "swift-service-context"),
            ]
        ),
        .target(
            name: "WebSocketRecipe",
            dependencies: [
                .product(name: "HTTPCore", package: "HTTPCore"),
                .product(name: "HTTPCoreWebSocket", package: "HTTPCoreIntegrations"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "WSClient", package: "swift-websocket"),
            ]
        ),
        .executableTarget(
            name: "websocket-recipe",
            dependencies: [
                "WebSocketRecipe",
                .product(name: "HTTPCore", package: "HTTPCore"),
                .product(name: "HTTPCoreConsole", package: "HTTPCore"),
                .product(name: "HTTPCoreHAR", package: "HTTPCore"),
                .product(name: "HTTPCoreAsyncHTTPClient", package: "HTTPCoreIntegrations"),
            ]
        ),
        .executableTarget(
            name: "hummingbird-recipe",
            dependencies: [
                "HummingbirdRecipe",
                .product(name: "HTTPCore", package: "HTTPCore"),
                .product(name: "HTTPCoreAsyncHTTPClient", package: "HTTPCoreIntegrations"),
                .product(name: "HTTPCoreLogging", package: "HTTPCoreIntegrations"),
                .product(name: "HTTPCoreServiceLifecycle", package: "HTTPCoreIntegrations"),
                .product(name: "HTTPCoreTracing", package: "HTTPCoreIntegrations"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        .testTarget(
            name: "ServerRecipesTests",
            dependencies: [
                "HummingbirdRecipe",
                "WebSocketRecipe",
                .product(name: "HTTPCoreConsole", package: "HTTPCore"),
                .product(name: "HTTPCoreHAR", package: "HTTPCore"),
                .product(name: "HTTPCoreTesting", package: "HTTPCore"),
                "VaporRecipe",
                .product(name: "Vapor", package: "vapor"),
                .product(name: "HTTPCore", package: "HTTPCore"),
                .product(name: "_HTTPCoreLoopback", package: "HTTPCore"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "HTTPCoreLogging", package: "HTTPCoreIntegrations"),
                .product(name: "HTTPCoreTracing", package: "HTTPCoreIntegrations"),
                .product(name: "HTTPCoreAsyncHTTPClient", package: "HTTPCoreIntegrations"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "InMemoryTracing", package: "swift-distributed-tracing"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
