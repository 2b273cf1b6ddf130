import HTTPCore

/// The transport of a fixture's client: the fixture's ``ReplayTransport`` when it replays, the
/// live transport when it records.
public struct FixtureTransport<Live: HTTPTransport>: HTTPTransport {
    private enum Source: Sendable {
        case replay(ReplayTransport)
        case live(Live)
    }

    private let source: Source

    init(replay: ReplayTransport) {
        source = .replay(replay)
    }

    init(live: Live) {
        source = .live(live)
    }

    /// Performs the exchange with the replay, or with the live transport.
    ///
    /// - Parameters:
    ///   - request: What to send.
    ///   - body: The request body to stream.
    /// - Returns: The response head and its body.
    /// - Throws: What the replay or the live transport throws.
    public func perform(_ request: HTTPRequest, body: HTTPBody?) async throws -> (HTTPResponse.Head, HTTPBody) {
        switch source {
        case .replay(let replay): try await replay.perform(request, body: body)
        case .live(let live): try await live.perform(request, body: body)
        }
    }
}
