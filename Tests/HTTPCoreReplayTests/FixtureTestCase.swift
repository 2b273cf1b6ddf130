import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HTTPCoreURLSession
import XCTest

/// A test case with a fixture folder of its own, removed after each test, and URLSession as
/// the live transport.
class FixtureTestCase: XCTestCase {
    /// Where this test's fixtures are written.
    private(set) var directory: URL!

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("fixtures-\(UUID().uuidString)")
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: directory)
    }

    /// A URLSession transport with a session of its own.
    func urlSession() -> URLSessionTransport {
        URLSessionTransport(session: URLSession(configuration: .ephemeral))
    }
}
