#if canImport(Testing)
import Foundation
import HTTPCoreReplay
import Testing

/// A Swift Testing trait that runs a test with a recorded-traffic fixture as
/// `HTTPFixture.current`, and saves it after the test when it recorded.
///
/// ```swift
/// @Test(.httpFixture("user-42"))
/// func user() async throws {
///     let client = HTTPFixture.current!.client(recordingThrough: URLSessionTransport(session: .shared))
///     _ = try await client.send(HTTPRequest(url: URL(string: "https://api.example.com/users/42")!))
/// }
/// ```
public struct HTTPFixtureTrait: TestTrait, SuiteTrait, TestScoping {
    let name: String
    let directory: URL?
    let filePath: String
    let mode: HTTPFixture.Mode?

    /// Runs `function` inside `HTTPFixture.using`.
    ///
    /// - Parameters:
    ///   - test: The test.
    ///   - testCase: Its case, for a parameterized test.
    ///   - function: The test's code.
    /// - Throws: What the test threw, or the fixture's `invalid_fixture` error.
    public func provideScope(for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void) async throws {
        try await HTTPFixture.using(name, directory: directory, filePath: filePath, mode: mode) { _ in try await function() }
    }
}

extension Trait where Self == HTTPFixtureTrait {
    /// Runs the test with the fixture `name`: `<name>.har` in `directory`, by default the
    /// `Fixtures` folder beside the test's file.
    ///
    /// - Parameters:
    ///   - name: The fixture's name.
    ///   - directory: Where its file is.
    ///   - mode: Whether to record or replay; by default as `HTTPFixture.modeVariable` says.
    ///   - filePath: The test's file.
    /// - Returns: The trait.
    public static func httpFixture(_ name: String, directory: URL? = nil, mode: HTTPFixture.Mode? = nil, filePath: String = #filePath) -> Self {
        HTTPFixtureTrait(name: name, directory: directory, filePath: filePath, mode: mode)
    }
}
#endif
