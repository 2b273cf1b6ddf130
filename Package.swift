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
        .library(name: "HTTPCore", targets: ["HTTPCore", "HTTPCoreObservation"]),
        .library(name: "HTTPCoreURLSession", targets: ["HTTPCoreURLSession"]),
        .library(name: "HTTPCoreRedaction", targets: ["HTTPCoreRedaction"]),
        .library(name: "HTTPCoreTesting", targets: ["HTTPCoreTesting"]),
        // Test servers and this repository's peer launchers, for tests (its own, its
        // integrations' and yours): unversioned, no API promise, hence the underscore.
        .library(name: "_HTTPCoreLoopback", targets: ["HTTPCoreLoopback"]),
        .library(name: "_DevSeeServer", targets: ["DevSeeServer"]),
        .library(name: "_HTTPCoreTestPeers", targets: ["HTTPCoreTestPeers"]),
        .library(name: "DevSeeObserver", targets: ["DevSeeObserver"]),
        .library(name: "HTTPCoreDelivery", targets: ["HTTPCoreDelivery"]),
        .library(name: "LokiObserver", targets: ["LokiObserver"]),
        .library(name: "HTTPCoreHAR", targets: ["HTTPCoreHAR"]),
        .library(name: "HTTPCoreReplay", targets: ["HTTPCoreReplay"]),
        .library(name: "HTTPCoreGenAI", targets: ["HTTPCoreGenAI"]),
        .library(name: "HTTPCoreConsole", targets: ["HTTPCoreConsole"]),
        // The terminal dev-see server: `swift run devsee-tail` in an app's package that depends
        // on this one.
        .executable(name: "devsee-tail", targets: ["devsee-tail"]),
    ],
    dependencies: [],
    targets: [
        // Shared mechanisms, `package`-visible only.
        .target(name: "HTTPCoreText"),
        .target(name: "HTTPCoreConcurrency"),
        // The redaction engine, and the contract built on it.
        .target(name: "HTTPCoreRedaction", dependencies: ["HTTPCoreText"]),
        .target(name: "HTTPCore", dependencies: ["HTTPCoreRedaction", "HTTPCoreText", "HTTPCoreConcurrency"]),
        // Observation: typed events, the policy, observers, the dispatcher, the observing client.
        .target(name: "HTTPCoreObservation", dependencies: ["HTTPCore", "HTTPCoreRedaction", "HTTPCoreText", "HTTPCoreConcurrency"]),
        // Interpreters: conventions read from the traffic, plugged in through the policy.
        .target(name: "HTTPCoreGenAI", dependencies: ["HTTPCore", "HTTPCoreObservation", "HTTPCoreText", "HTTPCoreConcurrency"]),
        // Transports.
        .target(name: "HTTPCoreURLSession", dependencies: ["HTTPCore", "HTTPCoreObservation", "HTTPCoreConcurrency"]),
        // Sinks.
        .target(name: "HTTPCoreDelivery", dependencies: ["HTTPCore", "HTTPCoreObservation", "HTTPCoreText", "HTTPCoreConcurrency"]),
        .target(
            name: "DevSeeObserver",
            dependencies: ["HTTPCore", "HTTPCoreObservation", "HTTPCoreURLSession", "HTTPCoreDelivery", "HTTPCoreText", "HTTPCoreConcurrency"]
        ),
        .target(
            name: "LokiObserver",
            dependencies: ["HTTPCore", "HTTPCoreObservation", "HTTPCoreURLSession", "HTTPCoreDelivery", "HTTPCoreText", "HTTPCoreConcurrency"]
        ),
        .target(name: "HTTPCoreHAR", dependencies: ["HTTPCore", "HTTPCoreObservation", "HTTPCoreText", "HTTPCoreConcurrency"]),
        .target(
            name: "HTTPCoreReplay",
            dependencies: ["HTTPCore", "HTTPCoreObservation", "HTTPCoreRedaction", "HTTPCoreHAR", "HTTPCoreText", "HTTPCoreConcurrency"]
        ),
        .target(name: "HTTPCoreConsole", dependencies: ["HTTPCore", "HTTPCoreObservation", "HTTPCoreDelivery", "HTTPCoreText"]),
        // Test kit: doubles and conformance, a loopback server, a dev-see receiver.
        .target(name: "HTTPCoreLoopback", dependencies: ["HTTPCore", "HTTPCoreObservation", "HTTPCoreText", "HTTPCoreConcurrency"]),
        .target(name: "HTTPCoreTesting", dependencies: ["HTTPCore", "HTTPCoreObservation", "HTTPCoreLoopback", "HTTPCoreReplay", "HTTPCoreConcurrency"]),
        .target(name: "DevSeeServer", dependencies: ["HTTPCoreLoopback", "HTTPCoreText", "HTTPCoreConcurrency"]),
        // This repository's own test and example support; not products.
        .target(
            name: "HTTPCoreTestPeers",
            dependencies: ["HTTPCore", "HTTPCoreObservation", "HTTPCoreGenAI", "HTTPCoreTesting", "HTTPCoreLoopback", "HTTPCoreConcurrency"],
            path: "Tests/HTTPCoreTestPeers"
        ),
        .target(name: "HTTPCoreTestEnd", dependencies: ["HTTPCoreConcurrency"], path: "Tests/HTTPCoreTestEnd"),
        // The examples' stand-ins for your API and the dev-see app; the examples themselves use only
        // versioned products.
        .target(name: "ExampleSupport", dependencies: ["HTTPCoreLoopback", "DevSeeServer", "HTTPCoreConcurrency"], path: "Examples/ExampleSupport"),
        .executableTarget(name: "devsee-tail", dependencies: ["HTTPCore", "HTTPCoreObservation", "DevSeeServer", "HTTPCoreText", "HTTPCoreConcurrency"]),
        .executableTarget(
            name: "quickstart",
            dependencies: [
                "HTTPCore", "HTTPCoreObservation", "HTTPCoreURLSession", "DevSeeObserver", "HTTPCoreHAR", "HTTPCoreConsole", "ExampleSupport",
            ],
            path: "Examples/quickstart"
        ),
        .executableTarget(
            name: "custom-transport",
            dependencies: ["HTTPCore", "HTTPCoreObservation", "DevSeeObserver", "HTTPCoreConsole", "ExampleSupport"],
            path: "Examples/custom-transport"
        ),
        .executableTarget(
            name: "server-worker",
            dependencies: ["HTTPCore", "HTTPCoreObservation", "HTTPCoreURLSession", "DevSeeObserver", "ExampleSupport"],
            path: "Examples/server-worker"
        ),
        .executableTarget(
            name: "event-dispatcher",
            dependencies: ["HTTPCore", "HTTPCoreObservation", "HTTPCoreURLSession", "DevSeeObserver", "HTTPCoreConsole", "ExampleSupport"],
            path: "Examples/event-dispatcher"
        ),
        .executableTarget(
            name: "streaming",
            dependencies: ["HTTPCore", "HTTPCoreObservation", "HTTPCoreURLSession", "DevSeeObserver", "HTTPCoreHAR", "ExampleSupport"],
            path: "Examples/streaming"
        ),
        .executableTarget(
            name: "httpcore-bench",
            dependencies: [
                "HTTPCore", "HTTPCoreObservation", "HTTPCoreURLSession", "HTTPCoreTesting", "HTTPCoreLoopback", "DevSeeServer",
                "DevSeeObserver", "LokiObserver", "HTTPCoreTestPeers", "HTTPCoreHAR", "HTTPCoreGenAI", "HTTPCoreDelivery", "HTTPCoreConsole",
            ],
            path: "Benchmarks/httpcore-bench"
        ),
        .testTarget(name: "HTTPCoreTextTests", dependencies: ["HTTPCoreText"]),
        .testTarget(name: "HTTPCoreConcurrencyTests", dependencies: ["HTTPCoreConcurrency"]),
        .testTarget(
            name: "HTTPCoreReplayTests",
            dependencies: [
                "HTTPCoreReplay", "HTTPCore", "HTTPCoreObservation", "HTTPCoreURLSession", "HTTPCoreTesting", "HTTPCoreLoopback",
                "HTTPCoreRedaction", "HTTPCoreHAR",
            ],
            exclude: ["Fixtures"]
        ),
        .testTarget(name: "HTTPCoreRedactionTests", dependencies: ["HTTPCoreRedaction", "HTTPCoreText", "HTTPCoreTesting", "HTTPCoreTestPeers"]),
        .testTarget(
            name: "HTTPCoreTests",
            dependencies: ["HTTPCoreGenAI", "HTTPCore", "HTTPCoreObservation", "HTTPCoreTesting", "HTTPCoreLoopback", "HTTPCoreURLSession", "HTTPCoreConcurrency", "HTTPCoreTestPeers"]
        ),
        .testTarget(
            name: "HTTPCoreGenAITests",
            dependencies: [
                "HTTPCoreGenAI", "HTTPCore", "HTTPCoreObservation", "HTTPCoreText", "HTTPCoreTesting", "HTTPCoreLoopback", "HTTPCoreURLSession", "HTTPCoreConcurrency",
                "HTTPCoreTestPeers",
            ]
        ),
        .testTarget(
            name: "HTTPCoreURLSessionTests",
            dependencies: ["HTTPCore", "HTTPCoreObservation", "HTTPCoreURLSession", "HTTPCoreTesting", "HTTPCoreLoopback", "HTTPCoreConcurrency", "HTTPCoreTestPeers"]
        ),
        .testTarget(name: "HTTPCoreTestingTests", dependencies: ["HTTPCore", "HTTPCoreObservation", "HTTPCoreTesting", "HTTPCoreLoopback"]),
        .testTarget(name: "HTTPCoreLoopbackTests", dependencies: ["HTTPCoreLoopback", "HTTPCore", "HTTPCoreObservation", "HTTPCoreTestPeers"]),
        .testTarget(name: "DevSeeServerTests", dependencies: ["DevSeeServer", "HTTPCoreLoopback", "HTTPCoreText", "HTTPCoreTestPeers"]),
        .testTarget(name: "HTTPCoreTestPeersTests", dependencies: ["HTTPCoreTestPeers"]),
        .testTarget(name: "HTTPCoreTestEndTests", dependencies: ["HTTPCoreTestEnd", "HTTPCoreConcurrency"]),
        .testTarget(
            name: "DevSeeObserverTests",
            dependencies: ["HTTPCoreGenAI",
                "DevSeeObserver", "HTTPCore", "HTTPCoreObservation", "HTTPCoreURLSession", "HTTPCoreTesting", "HTTPCoreLoopback", "DevSeeServer",
                "HTTPCoreConsole", "HTTPCoreConcurrency", "HTTPCoreTestPeers", "HTTPCoreTestEnd",
            ]
        ),
        .testTarget(
            name: "HTTPCoreDeliveryTests",
            dependencies: ["HTTPCoreDelivery", "HTTPCore", "HTTPCoreObservation", "HTTPCoreConcurrency", "HTTPCoreLoopback", "HTTPCoreURLSession", "HTTPCoreTesting"]
        ),
        .testTarget(
            name: "LokiObserverTests",
            dependencies: ["HTTPCoreGenAI",
                "LokiObserver", "HTTPCoreDelivery", "HTTPCore", "HTTPCoreObservation", "HTTPCoreURLSession", "HTTPCoreTesting", "HTTPCoreLoopback",
                "HTTPCoreText", "HTTPCoreConcurrency", "HTTPCoreTestPeers", "HTTPCoreTestEnd",
            ],
            exclude: ["Peers"]
        ),
        .testTarget(
            name: "HTTPCoreConsoleTests",
            dependencies: [
                "HTTPCoreConsole", "HTTPCore", "HTTPCoreObservation", "HTTPCoreGenAI", "HTTPCoreDelivery", "HTTPCoreTesting", "HTTPCoreConcurrency", "HTTPCoreTestPeers",
            ]
        ),
        .testTarget(
            name: "HTTPCoreHARTests",
            dependencies: ["HTTPCoreGenAI",
                "HTTPCoreHAR", "HTTPCore", "HTTPCoreObservation", "HTTPCoreURLSession", "HTTPCoreTesting", "HTTPCoreLoopback", "HTTPCoreText", "HTTPCoreConcurrency",
                "HTTPCoreTestPeers",
            ],
            exclude: ["Peers"]
        ),
        .testTarget(
            name: "DevSeeTailTests",
            dependencies: [
                "devsee-tail", "DevSeeObserver", "DevSeeServer", "HTTPCore", "HTTPCoreObservation", "HTTPCoreTesting", "HTTPCoreLoopback", "HTTPCoreConcurrency",
            ]
        ),
        .testTarget(
            name: "OutputsTests",
            dependencies: ["HTTPCoreGenAI",
                "DevSeeObserver", "DevSeeServer", "LokiObserver", "HTTPCoreHAR", "HTTPCoreConsole", "HTTPCore", "HTTPCoreObservation", "HTTPCoreURLSession",
                "HTTPCoreLoopback", "HTTPCoreConcurrency", "HTTPCoreTestPeers", "HTTPCoreTestEnd", "devsee-tail",
            ]
        ),
        .testTarget(
            name: "ExamplesTests",
            dependencies: [
                "quickstart", "custom-transport", "server-worker", "event-dispatcher", "streaming", "HTTPCore", "HTTPCoreObservation", "HTTPCoreTesting",
                "HTTPCoreLoopback", "DevSeeServer", "ExampleSupport", "HTTPCoreConcurrency",
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
