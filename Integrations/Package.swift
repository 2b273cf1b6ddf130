// swift-tools-version:6.2
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
///
/// Every package named here is one the libraries import, and none is asked for a trait: a
/// service resolves all of them, next to its own dependencies, so a test-only dependency here
/// (a swift-otel with `OTLPHTTP`, say) could fail a service's resolution. The tests and the
/// benchmarks are the package in `IntegrationTests/`, which the release carries but no
/// service resolves.
///
/// Tools version 6.2, the oldest Swift these packages resolve with: the manifest itself needs
/// only 6.0, but the releases it names as minimums (AsyncHTTPClient 1.37.0, swift-log 1.16.2,
/// swift-metrics 2.13.0, swift-distributed-tracing 1.7.3, swift-service-lifecycle 2.13.0,
/// swift-openapi-runtime 1.13.4) declare 6.2, so saying 6.2 here makes an older toolchain
/// fail on this package, by name, instead of on one of theirs. The README says the same.
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
        .library(name: "HTTPCoreWebSocket", targets: ["HTTPCoreWebSocket"]),
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
        .package(url: "https://github.com/hummingbird-project/swift-websocket.git", from: "1.6.2"),
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
        .target(
            name: "HTTPCoreOpenAPI",
            dependencies: [
                "HTTPCoreHTTPTypes",
                .product(name: "HTTPCore", package: "HTTPCore"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
            ]
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
        .target(
            name: "HTTPCoreLogging",
            dependencies: [.product(name: "HTTPCore", package: "HTTPCore"), .product(name: "Logging", package: "swift-log")]
        ),
        .target(
            name: "HTTPCoreMetrics",
            dependencies: [
                .product(name: "HTTPCore", package: "HTTPCore"), .product(name: "HTTPCoreGenAI", package: "HTTPCore"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
            ]
        ),
        .target(
            name: "HTTPCoreTracing",
            dependencies: [
                .product(name: "HTTPCore", package: "HTTPCore"), .product(name: "HTTPCoreGenAI", package: "HTTPCore"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ]
        ),
        .target(
            name: "HTTPCoreWebSocket",
            dependencies: [
                .product(name: "HTTPCore", package: "HTTPCore"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "WSClient", package: "swift-websocket"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
