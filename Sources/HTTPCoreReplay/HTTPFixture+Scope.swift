import Foundation
import HTTPCore

extension HTTPFixture {
    /// The fixture of the test running now, set by ``using(_:directory:filePath:mode:matching:timing:_:)``
    /// and by the Swift Testing trait `.httpFixture(_:)` of HTTPCoreTesting.
    @TaskLocal public static var current: HTTPFixture?

    /// Runs `body` with the fixture `name`, as ``current`` too, then saves it when it recorded.
    ///
    /// The fixture is `<name>.har` in `directory`, by default the `Fixtures` folder beside
    /// the file that calls this. In XCTest:
    ///
    /// ```swift
    /// func testUser() async throws {
    ///     try await HTTPFixture.using("user-42") { fixture in
    ///         let client = fixture.client(recordingThrough: URLSessionTransport(session: .shared))
    ///         _ = try await client.send(HTTPRequest(url: URL(string: "https://api.example.com/users/42")!))
    ///     }
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - name: The fixture's name.
    ///   - directory: Where its file is; by default `Fixtures` beside `filePath`.
    ///   - filePath: The caller's file.
    ///   - mode: Whether to record or replay; by default as ``modeVariable`` says.
    ///   - matching: How a replay matches requests.
    ///   - timing: When a replayed response's pieces come.
    ///   - body: The test's code.
    /// - Returns: What `body` returned.
    /// - Throws: What `body` threw (nothing is saved then), or the fixture's
    ///   `invalid_fixture`.
    public static func using<Result: Sendable>(
        _ name: String, directory: URL? = nil, filePath: String = #filePath, mode: Mode? = nil,
        matching: ReplayMatching = ReplayMatching(), timing: ReplayTransport.Timing = .immediate,
        _ body: (HTTPFixture) async throws -> Result
    ) async throws -> Result {
        let folder = directory ?? URL(fileURLWithPath: filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")
        let fixture = try HTTPFixture(name, directory: folder, mode: mode, matching: matching, timing: timing)
        let result = try await $current.withValue(fixture) { try await body(fixture) }
        try await fixture.save()
        return result
    }
}
