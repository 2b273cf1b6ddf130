// swift-tools-version:6.1
import Foundation
import PackageDescription

/// Integrations of HTTPCore with ecosystem libraries, one product each, so an app takes only
/// what it needs. They live in this nested package because the root package has no
/// dependencies, ever.
///
/// Users add this package by URL: it is released as a repository of its own, split out of
/// HTTPCore's with `git subtree split` (CONTRIBUTING.md, "Cutting a release"). Split out, it depends on
/// HTTPCore by URL and version; inside HTTPCore's repository, on the folder above, so the two
/// are always built and tested together here.
let core: Package.Dependency = {
    let above = URL(fileURLWithPath: Context.packageDirectory).deletingLastPathComponent().appendingPathComponent("Package.swift")
    if let manifest = try? String(contentsOf: above, encoding: .utf8), manifest.contains(#"name: "HTTPCore","#) {
        return .package(name: "HTTPCore", path: "..")
    }
    return .package(url: "https://github.com/devsee/HTTPCore.git", from: "1.0.0")
}()

let package = Package(
    name: "HTTPCoreIntegrations",
    platforms: [
        .macOS(.v13),
        .iOS(.v16),
        .tvOS(.v16),
        .watchOS(.v9),
    ],
    products: [
        .library(name: "HTTPCoreAsyncHTTPClient", targets: ["HTTPCoreAsyncHTTPClient"]),
        .library(name: "HTTPCoreLogging", targets: ["HTTPCoreLogging"]),
        .library(name: "HTTPCoreMetrics", targets: ["HTTPCoreMetrics"]),
        .library(name: "HTTPCoreTracing", targets: ["HTTPCoreTracing"]),
        .library(name: "HTTPCoreHTTPTypes", targets: ["HTTPCoreHTTPTypes"]),
        .library(name: "HTTPCoreServiceLifecycle", targets: ["HTTPCoreServiceLifecycle"]),
        .library(name: "HTTPCoreOpenAPI", targets: ["HTTPCoreOpenAPI"]),
    ],
    dependencies: [
        core,
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-distributed-tracing.git", from: "1.7.3"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-openapi-runtime.git", from: "1.13.4"),
        // Tests only: the OpenAPI test's client is generated at build time by its plugin.
        .package(url: "https://github.com/apple/swift-openapi-generator.git", from: "1.14.3"),
        // server-bench only: counts the client's allocations (package-benchmark's own counter).
        .package(url: "https://github.com/ordo-one/malloc-interposer.git", from: "1.6.1"),
        // Tests only: metrics scraped by a real Prometheus server.
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        // Tests only: spans exported with OTLP/HTTP (not gRPC, which would build much more).
        .package(url: "https://github.com/swift-otel/swift-otel.git", from: "1.6.0", traits: ["OTLPHTTP"]),
    ],
    targets: [
        .target(
            name: "HTTPCoreAsyncHTTPClient",
            dependencies: [
                .product(name: "HTTPCore", package: "HTTPCore"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ]
        ),
        .target(
            name: "HTTPCoreHTTPTypes",
            dependencies: [.product(name: "HTTPCore", package: "HTTPCore"), .product(name: "HTTPTypes", package: "swift-http-types")]
        ),
        .testTarget(
            name: "HTTPCoreHTTPTypesTests",
            dependencies: ["HTTPCoreHTTPTypes", .product(name: "HTTPCore", package: "HTTPCore"), .product(name: "HTTPTypes", package: "swift-http-types")]
        ),
        .target(
            name: "HTTPCoreOpenAPI",
            dependencies: [
                "HTTPCoreHTTPTypes",
                .product(name: "HTTPCore", package: "HTTPCore"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
            ]
        ),
        .testTarget(
            name: "HTTPCoreOpenAPITests",
            dependencies: [
                "HTTPCoreOpenAPI",
                "HTTPCoreAsyncHTTPClient",
                .product(name: "HTTPCore", package: "HTTPCore"),
                .product(name: "HTTPCoreTesting", package: "HTTPCore"),
                .product(name: "HTTPCoreLoopback", package: "HTTPCore"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
            ],
            plugins: [.plugin(name: "OpenAPIGenerator", package: "swift-openapi-generator")]
        ),
        .target(
            name: "HTTPCoreServiceLifecycle",
            dependencies: [
                .product(name: "HTTPCore", package: "HTTPCore"),
                .product(name: "DevSeeObserver", package: "HTTPCore"),
                .product(name: "LokiObserver", package: "HTTPCore"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        .testTarget(
            name: "HTTPCoreServiceLifecycleTests",
            dependencies: [
                "HTTPCoreServiceLifecycle",
                .product(name: "HTTPCore", package: "HTTPCore"),
                .product(name: "HTTPCoreTesting", package: "HTTPCore"),
                .product(name: "DevSeeObserver", package: "HTTPCore"),
                .product(name: "DevSeeServer", package: "HTTPCore"),
                .product(name: "LokiObserver", package: "HTTPCore"),
                .product(name: "_HTTPCoreTestPeers", package: "HTTPCore"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .target(
            name: "HTTPCoreLogging",
            dependencies: [.product(name: "HTTPCore", package: "HTTPCore"), .product(name: "Logging", package: "swift-log")]
        ),
        .target(
            name: "HTTPCoreMetrics",
            dependencies: [.product(name: "HTTPCore", package: "HTTPCore"), .product(name: "CoreMetrics", package: "swift-metrics")]
        ),
        .target(
            name: "HTTPCoreTracing",
            dependencies: [
                .product(name: "HTTPCore", package: "HTTPCore"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ]
        ),
        // `swift run -c release --package-path Integrations integrations-bench`: streaming over AHC.
        .executableTarget(
            name: "integrations-bench",
            dependencies: [
                "HTTPCoreAsyncHTTPClient",
                .product(name: "HTTPCore", package: "HTTPCore"),
                .product(name: "HTTPCoreHAR", package: "HTTPCore"),
                .product(name: "DevSeeObserver", package: "HTTPCore"),
                .product(name: "DevSeeServer", package: "HTTPCore"),
                .product(name: "HTTPCoreLoopback", package: "HTTPCore"),
                .product(name: "_HTTPCoreTestPeers", package: "HTTPCore"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
            ],
            path: "Benchmarks/integrations-bench"
        ),
        // `swift run -c release --package-path Integrations server-bench`: the server path's
        // cost over AHC (throughput, CPU time and allocations per request).
        .executableTarget(
            name: "server-bench",
            dependencies: [
                "HTTPCoreAsyncHTTPClient",
                "HTTPCoreLogging",
                "HTTPCoreMetrics",
                "HTTPCoreTracing",
                .product(name: "HTTPCore", package: "HTTPCore"),
                .product(name: "DevSeeObserver", package: "HTTPCore"),
                .product(name: "HTTPCoreLoopback", package: "HTTPCore"),
                .product(name: "_HTTPCoreTestPeers", package: "HTTPCore"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "MallocInterposerSwift", package: "malloc-interposer"),
            ],
            path: "Benchmarks/server-bench"
        ),
        .testTarget(
            name: "HTTPCoreTracingTests",
            dependencies: [
                "HTTPCoreTracing",
                "HTTPCoreLogging",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "HTTPCore", package: "HTTPCore"),
                .product(name: "HTTPCoreTesting", package: "HTTPCore"),
                .product(name: "HTTPCoreLoopback", package: "HTTPCore"),
                .product(name: "_HTTPCoreTestPeers", package: "HTTPCore"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "InMemoryTracing", package: "swift-distributed-tracing"),
                .product(name: "OTel", package: "swift-otel"),
            ],
            exclude: ["Peers"]
        ),
        .testTarget(
            name: "HTTPCoreAsyncHTTPClientTests",
            dependencies: [
                "HTTPCoreAsyncHTTPClient",
                .product(name: "HTTPCore", package: "HTTPCore"),
                .product(name: "HTTPCoreTesting", package: "HTTPCore"),
                .product(name: "HTTPCoreLoopback", package: "HTTPCore"),
                .product(name: "_HTTPCoreTestPeers", package: "HTTPCore"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
            ]
        ),
        .testTarget(
            name: "HTTPCoreLoggingTests",
            dependencies: [
                "HTTPCoreLogging",
                .product(name: "HTTPCore", package: "HTTPCore"),
                .product(name: "HTTPCoreTesting", package: "HTTPCore"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(
            name: "HTTPCoreMetricsTests",
            dependencies: [
                "HTTPCoreMetrics",
                .product(name: "HTTPCore", package: "HTTPCore"),
                .product(name: "HTTPCoreTesting", package: "HTTPCore"),
                .product(name: "HTTPCoreLoopback", package: "HTTPCore"),
                .product(name: "MetricsTestKit", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
