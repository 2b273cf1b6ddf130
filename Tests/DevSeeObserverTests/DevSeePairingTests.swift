import DevSeeObserver
import Foundation
import HTTPCore
import HTTPCoreObservation
import HTTPCoreConcurrency
import XCTest

final class DevSeePairingTests: XCTestCase {
    private func makeLogger(
        store: InMemoryEndpointStore = InMemoryEndpointStore(),
        serverURL: URL? = nil,
        allowsPublicHosts: Bool = false
    ) -> DevSeeLogger {
        var configuration = DevSeeLoggerConfiguration(appId: "com.example.app", serverURL: serverURL)
        configuration.endpointStore = store
        configuration.allowsPublicHosts = allowsPublicHosts
        configuration.isEnabled = false
        return DevSeeLogger(configuration: configuration)
    }

    func testConnectionLinkTable() {
        let cases: [(String, DevSeeConnectionResult)] = [
            ("dev-see-com.example.app://connect?server_ip=192.168.1.23&server_port=9090",
             .connected(DevSeeEndpoint(host: "192.168.1.23", port: 9090))),
            ("DEV-SEE-com.example.app://connect?server_ip=10.0.0.5&server_port=1",
             .connected(DevSeeEndpoint(host: "10.0.0.5", port: 1))),
            ("dev-see-com.example.app://connect?server_ip=172.31.255.1&server_port=65535",
             .connected(DevSeeEndpoint(host: "172.31.255.1", port: 65535))),
            ("dev-see-com.example.app://connect?server_ip=127.0.0.1&server_port=9090",
             .connected(DevSeeEndpoint(host: "127.0.0.1", port: 9090))),
            ("dev-see-com.example.app://connect?server_ip=169.254.10.1&server_port=9090",
             .connected(DevSeeEndpoint(host: "169.254.10.1", port: 9090))),
            ("dev-see-com.example.app://connect?server_ip=%5Bfe80%3A%3A1%5D&server_port=9090",
             .connected(DevSeeEndpoint(host: "fe80::1", port: 9090))),
            ("dev-see-com.example.app://connect?server_ip=fd12%3A3456%3A789a%3A1%3A%3A1&server_port=9090",
             .connected(DevSeeEndpoint(host: "fd12:3456:789a:1::1", port: 9090))),
            ("dev-see-com.example.app://connect?server_ip=%3A%3A1&server_port=9090",
             .connected(DevSeeEndpoint(host: "::1", port: 9090))),
            ("dev-see-com.example.app://connect?server_ip=macbook.local&server_port=9090",
             .connected(DevSeeEndpoint(host: "macbook.local", port: 9090))),
            ("dev-see-com.example.app://connect?server_port=9090&server_ip=192.168.0.2",
             .connected(DevSeeEndpoint(host: "192.168.0.2", port: 9090))),
            ("https://example.com/connect?server_ip=192.168.1.2&server_port=9090", .ignored),
            ("myapp://connect?server_ip=192.168.1.2&server_port=9090", .ignored),
            ("devsee-com.example.app://connect?server_ip=192.168.1.2&server_port=9090", .ignored),
        ]
        for (link, expected) in cases {
            XCTAssertEqual(makeLogger().connectionResult(for: URL(string: link)!), expected, link)
        }
    }

    func testMalformedLinksFailAndChangeNothing() {
        let malformed = [
            "dev-see-com.example.app://connect?server_port=9090",
            "dev-see-com.example.app://connect?server_ip=&server_port=9090",
            "dev-see-com.example.app://connect?server_ip=192.168.1.2",
            "dev-see-com.example.app://connect?server_ip=192.168.1.2&server_port=0",
            "dev-see-com.example.app://connect?server_ip=192.168.1.2&server_port=65536",
            "dev-see-com.example.app://connect?server_ip=192.168.1.2&server_port=-1",
            "dev-see-com.example.app://connect?server_ip=192.168.1.2&server_port=90a",
            "dev-see-com.example.app://connect?server_ip=192.168.1.2&server_port=%209090",
            "dev-see-com.example.app://connect?server_ip=999.1.1.1&server_port=9090",
            "dev-see-com.example.app://connect?server_ip=bad_host!&server_port=9090",
            "dev-see-com.example.app://connect?server_ip=%3A%3Azz&server_port=9090",
            "dev-see-com.example.app://disconnect?server_ip=192.168.1.2&server_port=9090",
            "dev-see-com.example.app://?server_ip=192.168.1.2&server_port=9090",
            "dev-see-://connect?server_ip=192.168.1.2&server_port=9090",
            "dev-see-com..app://connect?server_ip=192.168.1.2&server_port=9090",
            "dev-see-com.example.app://connect?server_ip=8.8.8.8&server_port=9090",
            "dev-see-com.example.app://connect?server_ip=api.example.com&server_port=9090",
            "dev-see-com.example.app://connect?server_ip=2001%3A4860%3A%3A8888&server_port=9090",
            "dev-see-com.example.app://connect?server_ip=172.32.0.1&server_port=9090",
            "dev-see-com.example.app://connect?server_ip=010.0.0.1&server_port=9090",
            "dev-see-com.example.app://connect?server_ip=0.0.0.0&server_port=9090",
        ]
        for link in malformed {
            let store = InMemoryEndpointStore()
            let logger = makeLogger(store: store)
            let before = logger.endpoint
            guard case .failed(let reason) = logger.connectionResult(for: URL(string: link)!) else {
                XCTFail("expected .failed for \(link)")
                continue
            }
            XCTAssertFalse(reason.isEmpty)
            XCTAssertEqual(logger.endpoint, before, link)
            XCTAssertNil(store.load(), link)
        }
    }

    func testHandleURLSaysWhetherTheURLWasALinkAndReportsARefusedOneWithItsReason() {
        let reports = Locked<[HTTPDiagnostic]>([])
        var configuration = DevSeeLoggerConfiguration(appId: "com.example.app")
        configuration.endpointStore = nil
        configuration.isEnabled = false
        configuration.diagnostics = { report in reports.withLock { $0.append(report) } }
        let logger = DevSeeLogger(configuration: configuration)

        XCTAssertFalse(logger.handleURL(URL(string: "https://example.com/connect?server_ip=192.168.1.2&server_port=9090")!))
        XCTAssertTrue(logger.handleURL(URL(string: "dev-see-com.example.app://connect?server_ip=8.8.8.8&server_port=9090")!))
        XCTAssertEqual(logger.endpoint, DevSeeEndpoint(host: "127.0.0.1", port: 9090), "a refused link changes nothing")
        XCTAssertTrue(logger.handleURL(URL(string: "dev-see-com.example.app://connect?server_ip=192.168.1.23&server_port=9091")!))
        XCTAssertEqual(logger.endpoint, DevSeeEndpoint(host: "192.168.1.23", port: 9091))

        let refused = reports.withLock { $0 }
        XCTAssertEqual(refused.map(\.source), ["DevSeeLogger"], "only the refused link is reported")
        XCTAssertEqual(refused.map(\.level), [.warning])
        let reason = try? XCTUnwrap(refused.first?.metadata["reason"])
        XCTAssertEqual(refused.first?.message, "refused a connection link: \(reason ?? "")")
        XCTAssertEqual(reason.map { $0.contains("public host") }, true)
    }

    func testPublicHostIsAcceptedWhenAllowed() {
        let link = URL(string: "dev-see-com.example.app://connect?server_ip=203.0.113.7&server_port=9090")!
        XCTAssertEqual(makeLogger(allowsPublicHosts: true).connectionResult(for: link), .connected(DevSeeEndpoint(host: "203.0.113.7", port: 9090)))
    }

    func testConnectedEndpointIsUsedAndPersistedThenRestored() {
        let store = InMemoryEndpointStore()
        let logger = makeLogger(store: store)
        XCTAssertEqual(logger.endpoint, DevSeeEndpoint(host: "127.0.0.1", port: 9090))
        _ = logger.handleURL(URL(string: "dev-see-com.example.app://connect?server_ip=192.168.1.23&server_port=9091")!)
        XCTAssertEqual(logger.endpoint, DevSeeEndpoint(host: "192.168.1.23", port: 9091))
        let stored = try? JSONSerialization.jsonObject(with: store.load() ?? Data()) as? [String: Any]
        XCTAssertEqual(stored?.keys.sorted(), ["host", "port"])
        XCTAssertEqual(makeLogger(store: store, serverURL: URL(string: "http://10.1.1.1:1234")).endpoint,
                       DevSeeEndpoint(host: "192.168.1.23", port: 9091))
    }

    func testAnEndpointStoredWithItsMembersInAnotherOrderIsRestored() {
        let store = InMemoryEndpointStore(Data(#"{ "port": 9091, "host": "192.168.1.23" }"#.utf8))
        XCTAssertEqual(makeLogger(store: store).endpoint, DevSeeEndpoint(host: "192.168.1.23", port: 9091))
        XCTAssertEqual(store.load(), Data(#"{ "port": 9091, "host": "192.168.1.23" }"#.utf8))
    }

    func testPrecedenceWithoutStoredEndpoint() {
        XCTAssertEqual(makeLogger(serverURL: URL(string: "http://10.1.1.1:1234")).endpoint, DevSeeEndpoint(host: "10.1.1.1", port: 1234))
        XCTAssertEqual(makeLogger(serverURL: URL(string: "https://logs.example.com")).endpoint,
                       DevSeeEndpoint(scheme: "https", host: "logs.example.com", port: 443))
        XCTAssertEqual(makeLogger().endpoint, DevSeeEndpoint(host: "127.0.0.1", port: 9090))
    }

    func testCorruptedOrInvalidStoredDataIsIgnoredAndCleared() {
        let corrupted: [Data] = [
            Data("not json".utf8),
            Data([0xFF, 0xFE]),
            Data(#"{"host":"192.168.1.2"}"#.utf8),
            Data(#"{"host":"192.168.1.2","port":"9090"}"#.utf8),
            Data(#"{"host":"192.168.1.2","port":70000}"#.utf8),
            Data(#"{"host":"","port":9090}"#.utf8),
            Data(#"{"host":"8.8.8.8","port":9090}"#.utf8),
            Data(),
        ]
        for data in corrupted {
            let store = InMemoryEndpointStore(data)
            let logger = makeLogger(store: store, serverURL: URL(string: "http://10.9.9.9:9999"))
            XCTAssertEqual(logger.endpoint, DevSeeEndpoint(host: "10.9.9.9", port: 9999), String(decoding: data, as: UTF8.self))
            XCTAssertNil(store.load(), "cleared: \(String(decoding: data, as: UTF8.self))")
        }
    }

    func testUserDefaultsStoreRoundTrip() {
        let store = UserDefaultsEndpointStore(appId: "com.example.roundtrip.\(UUID().uuidString)")
        defer { store.clear() }
        XCTAssertEqual(store.key.hasPrefix("dev-see.endpoint.com.example.roundtrip."), true)
        XCTAssertNil(store.load())
        store.save(Data("x".utf8))
        XCTAssertEqual(store.load(), Data("x".utf8))
        store.clear()
        XCTAssertNil(store.load())
    }

    func testCenterHandleURLSaysWhetherTheURLWasALink() {
        var configuration = DevSeeLoggerConfiguration(appId: "com.example.center")
        configuration.endpointStore = InMemoryEndpointStore()
        configuration.isEnabled = false
        DevSeeLoggerCenter.configure(configuration)
        XCTAssertTrue(DevSeeLoggerCenter.handleURL(URL(string: "dev-see-com.example.center://connect?server_ip=192.168.5.5&server_port=9090")!))
        XCTAssertTrue(DevSeeLoggerCenter.handleURL(URL(string: "dev-see-com.example.center://connect?server_ip=8.8.8.8&server_port=9090")!))
        XCTAssertFalse(DevSeeLoggerCenter.handleURL(URL(string: "https://example.com")!))
        XCTAssertEqual(DevSeeLoggerCenter.shared.endpoint, DevSeeEndpoint(host: "192.168.5.5", port: 9090))
        XCTAssertEqual(DevSeeLoggerCenter.shared.configuration.appId, "com.example.center")
    }

    func testUnusableServerURLsFallBackWithoutCrashing() {
        for text in ["http://my%20host:9090", "http://[fe80::1%25en0]:9090", "ftp://10.0.0.1:21", "http://:9090"] {
            XCTAssertEqual(makeLogger(serverURL: URL(string: text)).endpoint, DevSeeEndpoint(host: "127.0.0.1", port: 9090), text)
        }
        XCTAssertEqual(DevSeeEndpoint(host: "bad host", port: 9).url(path: "/api/logs").absoluteString, "http://bad%20host:9/api/logs")
        XCTAssertEqual(DevSeeEndpoint(host: "fe80::1", port: 9090).url(path: "api/logs").absoluteString, "http://[fe80::1]:9090/api/logs")
    }
}
