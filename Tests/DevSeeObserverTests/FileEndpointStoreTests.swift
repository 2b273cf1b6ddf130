import DevSeeObserver
import Foundation
import XCTest

/// The endpoint persisted in a file, as Linux apps and servers pair: across a restart.
final class FileEndpointStoreTests: XCTestCase {
    private var folder: URL!

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("dev-see-store-\(UUID().uuidString)")
    }

    override func tearDown() {
        try? FileManager.default.removeItem(at: folder)
    }

    private func logger(_ store: FileEndpointStore) -> DevSeeLogger {
        var configuration = DevSeeLoggerConfiguration(appId: "com.example.app", serverURL: URL(string: "http://10.9.9.9:9999"))
        configuration.endpointStore = store
        configuration.isEnabled = false
        return DevSeeLogger(configuration: configuration)
    }

    func testRoundTripCreatesTheFolderAndLeavesNoTemporaryFiles() throws {
        let store = FileEndpointStore(fileURL: folder.appendingPathComponent("a/b/endpoint.json"))
        XCTAssertNil(store.load())
        store.save(Data("one".utf8))
        store.save(Data("two".utf8))
        XCTAssertEqual(store.load(), Data("two".utf8))
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder.appendingPathComponent("a/b").path), ["endpoint.json"])
        store.clear()
        XCTAssertNil(store.load())
    }

    func testDefaultFileFollowsXDGThenHomeAndSanitizesTheAppID() {
        XCTAssertEqual(
            FileEndpointStore.defaultFileURL(appId: "com.example.app", environment: ["XDG_CONFIG_HOME": "/x/config", "HOME": "/home/u"]).path,
            "/x/config/dev-see/endpoint-com.example.app.json"
        )
        XCTAssertEqual(
            FileEndpointStore.defaultFileURL(appId: "com.example.app", environment: ["XDG_CONFIG_HOME": "relative", "HOME": "/home/u"]).path,
            "/home/u/.config/dev-see/endpoint-com.example.app.json"
        )
        XCTAssertEqual(FileEndpointStore.defaultFileURL(appId: "../../etc/passwd", environment: ["HOME": "/h"]).path, "/h/.config/dev-see/endpoint-.._.._etc_passwd.json")
        XCTAssertEqual(FileEndpointStore.defaultFileURL(appId: "..", environment: ["HOME": "/h"]).lastPathComponent, "endpoint-default.json")
        XCTAssertTrue(FileEndpointStore.defaultFileURL(appId: "a", environment: [:]).path.hasPrefix(FileManager.default.temporaryDirectory.path))
    }

    func testACorruptedOrOversizedFileIsIgnoredAndRemoved() throws {
        let file = folder.appendingPathComponent("endpoint.json")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for contents in [Data("{not json".utf8), Data(#"{"host":"8.8.8.8","port":53}"#.utf8), Data(repeating: 0x20, count: 70_000)] {
            try contents.write(to: file)
            XCTAssertEqual(logger(FileEndpointStore(fileURL: file)).endpoint, DevSeeEndpoint(host: "10.9.9.9", port: 9999))
            XCTAssertFalse(FileManager.default.fileExists(atPath: file.path), "removed after \(contents.prefix(20))")
        }
    }

    #if os(macOS) || os(Linux)  // `Process` exists only there
    func testPairingSurvivesARestartInAChildProcess() throws {
        let file = folder.appendingPathComponent("endpoint.json")
        let paired = try runChild(role: "pair", file: file)
        XCTAssertEqual(paired.status, 0, paired.output)
        XCTAssertTrue(FileManager.default.fileExists(atPath: file.path))
        let restarted = try runChild(role: "report", file: file)
        XCTAssertEqual(restarted.status, 0, restarted.output)
        XCTAssertTrue(restarted.output.contains("ENDPOINT 192.168.1.23:9191"), restarted.output)
    }

    /// Runs this test binary again, limited to ``testChildProcessEntryPoint()``, in a role.
    private func runChild(role: String, file: URL) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
        process.arguments = ["DevSeeObserverTests.FileEndpointStoreTests/testChildProcessEntryPoint"]
        var environment = ProcessInfo.processInfo.environment
        environment["DEVSEE_STORE_CHILD_ROLE"] = role
        environment["DEVSEE_STORE_CHILD_FILE"] = file.path
        process.environment = environment
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: output, as: UTF8.self))
    }

    /// Not a specification: the body of the child process of
    /// ``testPairingSurvivesARestartInAChildProcess()``. Without its environment it does nothing.
    func testChildProcessEntryPoint() {
        let environment = ProcessInfo.processInfo.environment
        guard let role = environment["DEVSEE_STORE_CHILD_ROLE"], let path = environment["DEVSEE_STORE_CHILD_FILE"] else { return }
        let logger = logger(FileEndpointStore(fileURL: URL(fileURLWithPath: path)))
        switch role {
        case "pair":
            let result = logger.connectionResult(for: URL(string: "dev-see-com.example.app://connect?server_ip=192.168.1.23&server_port=9191")!)
            XCTAssertEqual(result, .connected(DevSeeEndpoint(host: "192.168.1.23", port: 9191)))
        default:
            print("ENDPOINT \(logger.endpoint.host):\(logger.endpoint.port)")
        }
    }
    #endif
}
