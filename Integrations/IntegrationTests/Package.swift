// swift-tools-version:6.2
// 6.2, as `Integrations/Package.swift` (whose minimum dependencies declare 6.2): swift-otel is
// taken with a trait (`OTLPHTTP`), which needs tools version 6.1 or later, and swift-otel
// 1.6.0's own manifest is 6.2. No service ever resolves this package, so nothing here sets a
// minimum Swift version for users: the root's manifest and `Integrations/`'s do.
import Foundation
import PackageDescription

/// The tests and benchmarks of HTTPCore's integrations, in a package of their own so that their
/// dependencies (swift-openapi-generator, swift-prometheus, swift-otel, malloc-interposer) stay
/// out of the graph a service resolves when it adds `HTTPCoreIntegrations`: a trait asked of a
/// package the service also uses, as swift-otel's `OTLPHTTP` once was from the integrations'
/// own manifest, can make the service's resolution fail.
///
/// It depends on the integrations in the folder above, and on HTTPCore two folders above
/// inside HTTPCore's repository (by URL and version in the integrations' own repository, the
/// way `Integrations/Package.swift` does): `swift test --package-path Integrations/IntegrationTests`.
let corePackage: Package.Dependency = {
    let twoAbove = URL(fileURLWithPath: Context.packageDirectory)
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Package.swift")
    if let manifest = try? String(contentsOf: twoAbove, encoding: .utf8), manifest.contains(#"name: "HTTPCore","#) {
        return .package(name: "HTTPCore", path: "../..")
    }
    return .package(url: "https://github.com/devsee/HTTPCore.git", from: "1.0.0")
}()

/// A library of the integrations package, the one under test.
func integration(_ name: String) -> Target.Dependency {
    .product(name: name, package: "HTTPCoreIntegrations")
}

/// A product of HTTPCore's root package.
func core(_ name: String) -> Target.Dependency {
    .product(name: name, package: "HTTPCore")
}

let package = Package(
    name: "HTTPCoreIntegrationTests",
    platforms: [
        .macOS(.v13),
        .iOS(.v16),
        .tvOS(.v16),
        .watchOS(.v9),
    ],
    dependencies: [
        .package(name: "HTTPCoreIntegrations", path: ".."),
        corePackage,
        // The integrations' own dependencies, for the products the tests use directly.
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-distributed-tracing.git", from: "1.7.3"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-openapi-runtime.git", from: "1.13.4"),
        .package(url: "https://github.com/hummingbird-project/swift-websocket.git", from: "1.6.2"),
        // The OpenAPI test's client is generated at build time by its plugin.
        .package(url: "https://github.com/apple/swift-openapi-generator.git", from: "1.14.3"),
        // server-bench: counts the client's allocations (package-benchmark's own counter).
        .package(url: "https://github.com/ordo-one/malloc-interposer.git", from: "1.6.1"),
        // Metrics scraped by a real Prometheus server.
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        // Spans exported with OTLP/HTTP (not gRPC, which would build much more).
        .package(url: "https://github.com/swift-otel/swift-otel.git", from: "1.6.0", traits: ["OTLPHTTP"]),
    ],
    targets: [
        .testTarget(
            name: "HTTPCoreAsyncHTTPClientTests",
            dependencies: [
                integration("HTTPCoreAsyncHTTPClient"),
                core("HTTPCore"),
                core("HTTPCoreTesting"),
                core("_HTTPCoreLoopback"),
                core("_HTTPCoreTestPeers"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]
        ),
        .testTarget(
            name: "MovingFromAsyncHTTPClientTests",
            dependencies: [
                integration("HTTPCoreAsyncHTTPClient"),
                integration("HTTPCoreLogging"),
                integration("HTTPCoreMetrics"),
                integration("HTTPCoreTracing"),
                core("HTTPCore"),
                core("_HTTPCoreLoopback"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "InMemoryTracing", package: "swift-distributed-tracing"),
            ]
        ),
        .testTarget(
            name: "HTTPCoreLoggingTests",
            dependencies: [
                integration("HTTPCoreLogging"),
                core("HTTPCore"),
                core("HTTPCoreTesting"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(
            name: "HTTPCoreMetricsTests",
            dependencies: [
                integration("HTTPCoreMetrics"),
                core("HTTPCore"),
                core("HTTPCoreGenAI"),
                core("HTTPCoreTesting"),
                core("_HTTPCoreLoopback"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "MetricsTestKit", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ]
        ),
        .testTarget(
            name: "HTTPCoreTracingTests",
            dependencies: [
                integration("HTTPCoreTracing"),
                integration("HTTPCoreLogging"),
                integration("HTTPCoreMetrics"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Logging", package: "swift-log"),
                core("HTTPCore"),
                core("HTTPCoreGenAI"),
                core("HTTPCoreTesting"),
                core("_HTTPCoreLoopback"),
                core("HTTPCoreURLSession"),
                core("_HTTPCoreTestPeers"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "InMemoryTracing", package: "swift-distributed-tracing"),
                .product(name: "OTel", package: "swift-otel"),
            ],
            exclude: ["Peers"]
        ),
        .testTarget(
            name: "HTTPCoreWebSocketTests",
            dependencies: [
                integration("HTTPCoreWebSocket"),
                integration("HTTPCoreTracing"),
                integration("HTTPCoreMetrics"),
                core("HTTPCore"),
                core("DevSeeObserver"),
                core("_DevSeeServer"),
                core("HTTPCoreConsole"),
                core("HTTPCoreHAR"),
                core("HTTPCoreTesting"),
                core("_HTTPCoreTestPeers"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "MetricsTestKit", package: "swift-metrics"),
                .product(name: "InMemoryTracing", package: "swift-distributed-tracing"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "WSClient", package: "swift-websocket"),
            ],
            exclude: ["Peers"]
        ),
        .testTarget(
            name: "HTTPCoreHTTPTypesTests",
            dependencies: [
                integration("HTTPCoreHTTPTypes"),
                core("HTTPCore"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ]
        ),
        .testTarget(
            name: "HTTPCoreServiceLifecycleTests",
            dependencies: [
                integration("HTTPCoreServiceLifecycle"),
                core("HTTPCore"),
                core("HTTPCoreTesting"),
                core("DevSeeObserver"),
                core("_DevSeeServer"),
                core("LokiObserver"),
                core("_HTTPCoreTestPeers"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(
            name: "HTTPCoreOpenAPITests",
            dependencies: [
                integration("HTTPCoreOpenAPI"),
                integration("HTTPCoreAsyncHTTPClient"),
                core("HTTPCore"),
                core("HTTPCoreReplay"),
                core("HTTPCoreTesting"),
                core("_HTTPCoreLoopback"),
                core("_HTTPCoreTestPeers"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
            ],
            plugins: [.plugin(name: "OpenAPIGenerator", package: "swift-openapi-generator")]
        ),
        // `swift run -c release --package-path Integrations/IntegrationTests integrations-bench`:
        // streaming over AHC.
        .executableTarget(
            name: "integrations-bench",
            dependencies: [
                integration("HTTPCoreAsyncHTTPClient"),
                core("HTTPCore"),
                core("HTTPCoreHAR"),
                core("DevSeeObserver"),
                core("_DevSeeServer"),
                core("_HTTPCoreLoopback"),
                core("_HTTPCoreTestPeers"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
            ],
            path: "Benchmarks/integrations-bench"
        ),
        // `swift run -c release --package-path Integrations/IntegrationTests server-bench`: the
        // server path's cost over AHC (throughput, CPU time and allocations per request).
        .executableTarget(
            name: "server-bench",
            dependencies: [
                integration("HTTPCoreAsyncHTTPClient"),
                integration("HTTPCoreLogging"),
                integration("HTTPCoreMetrics"),
                integration("HTTPCoreTracing"),
                core("HTTPCore"),
                core("DevSeeObserver"),
                core("_HTTPCoreLoopback"),
                core("_HTTPCoreTestPeers"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "Instrumentation", package: "swift-distributed-tracing"),
                .product(name: "MallocInterposerSwift", package: "malloc-interposer"),
            ],
            path: "Benchmarks/server-bench"
        ),
    ],
    swiftLanguageModes: [.v6]
)
