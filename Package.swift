// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "HTTPCore",
    platforms: [
        .macOS(.v12),
        .iOS(.v15),
        .tvOS(.v15),
        .watchOS(.v8),
    ],
    products: [
        .library(name: "HTTPCore", targets: ["HTTPCore"]),
        .library(name: "HTTPCoreURLSession", targets: ["HTTPCoreURLSession"]),
        .library(name: "HTTPCoreTesting", targets: ["HTTPCoreTesting"]),
        .library(name: "DevSeeObserver", targets: ["DevSeeObserver"]),
        .library(name: "HTTPCoreDelivery", targets: ["HTTPCoreDelivery"]),
        .library(name: "LokiObserver", targets: ["LokiObserver"]),
        .library(name: "HTTPCoreHAR", targets: ["HTTPCoreHAR"]),
    ],
    dependencies: [],
    targets: [
        .target(name: "HTTPCore"),
        .target(name: "HTTPCoreURLSession", dependencies: ["HTTPCore"]),
        .target(name: "HTTPCoreTesting", dependencies: ["HTTPCore"]),
        .target(name: "HTTPCoreDelivery", dependencies: ["HTTPCore"]),
        .target(name: "DevSeeObserver", dependencies: ["HTTPCore", "HTTPCoreURLSession", "HTTPCoreDelivery"]),
        .target(name: "LokiObserver", dependencies: ["HTTPCore", "HTTPCoreURLSession", "HTTPCoreDelivery"]),
        .target(name: "HTTPCoreHAR", dependencies: ["HTTPCore"]),
        .executableTarget(
            name: "quickstart",
            dependencies: ["HTTPCore", "HTTPCoreURLSession", "HTTPCoreTesting", "DevSeeObserver", "HTTPCoreHAR"],
            path: "Examples/quickstart"
        ),
        .executableTarget(
            name: "custom-transport",
            dependencies: ["HTTPCore", "HTTPCoreTesting", "DevSeeObserver"],
            path: "Examples/custom-transport"
        ),
        .executableTarget(
            name: "server-worker",
            dependencies: ["HTTPCore", "HTTPCoreURLSession", "HTTPCoreTesting", "DevSeeObserver"],
            path: "Examples/server-worker"
        ),
        .executableTarget(
            name: "event-dispatcher",
            dependencies: ["HTTPCore", "HTTPCoreURLSession", "HTTPCoreTesting", "DevSeeObserver"],
            path: "Examples/event-dispatcher"
        ),
        .executableTarget(name: "devsee-tail", dependencies: ["HTTPCore", "HTTPCoreTesting"]),
        .executableTarget(
            name: "httpcore-bench",
            dependencies: ["HTTPCore", "HTTPCoreURLSession", "HTTPCoreTesting", "DevSeeObserver", "LokiObserver"],
            path: "Benchmarks/httpcore-bench"
        ),
        .testTarget(name: "HTTPCoreTests", dependencies: ["HTTPCore", "HTTPCoreTesting", "HTTPCoreURLSession"]),
        .testTarget(
            name: "HTTPCoreURLSessionTests",
            dependencies: ["HTTPCore", "HTTPCoreURLSession", "HTTPCoreTesting"]
        ),
        .testTarget(name: "HTTPCoreTestingTests", dependencies: ["HTTPCore", "HTTPCoreTesting"]),
        .testTarget(
            name: "DevSeeObserverTests",
            dependencies: ["DevSeeObserver", "HTTPCore", "HTTPCoreURLSession", "HTTPCoreTesting"]
        ),
        .testTarget(name: "HTTPCoreDeliveryTests", dependencies: ["HTTPCoreDelivery", "HTTPCore"]),
        .testTarget(
            name: "LokiObserverTests",
            dependencies: ["LokiObserver", "HTTPCoreDelivery", "HTTPCore", "HTTPCoreURLSession", "HTTPCoreTesting"],
            exclude: ["Peers"]
        ),
        .testTarget(
            name: "HTTPCoreHARTests",
            dependencies: ["HTTPCoreHAR", "HTTPCore", "HTTPCoreURLSession", "HTTPCoreTesting"],
            exclude: ["Peers"]
        ),
        .testTarget(name: "DevSeeTailTests", dependencies: ["devsee-tail", "DevSeeObserver", "HTTPCore", "HTTPCoreTesting"]),
        .testTarget(
            name: "ExamplesTests",
            dependencies: ["quickstart", "custom-transport", "server-worker", "event-dispatcher", "HTTPCore", "HTTPCoreTesting"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
