import Foundation
import HTTPCore
import HTTPCoreHAR
import HTTPCoreObservation

/// A named fixture of recorded traffic: a HAR file that a test records once from real
/// traffic, through any transport, and replays after, without the network.
///
/// ```swift
/// let fixture = try HTTPFixture("users", directory: URL(fileURLWithPath: "Tests/Fixtures"))
/// let client = fixture.client(recordingThrough: URLSessionTransport(session: .shared))
/// _ = try await client.send(HTTPRequest(url: URL(string: "https://api.example.com/users/42")!))
/// try await fixture.save()
/// ```
///
/// When it replays, the client's transport is a ``ReplayTransport`` over the file and the live
/// transport is never made. When it records, requests go to the live transport, and
/// ``save()`` writes what the client's events showed, redacted by its policy, as HAR; it
/// refuses to write a fixture that would still hold a secret or a body cut short. Observers
/// of ``dispatcher`` see the same events either way; a replayed response carries
/// ``ReplayTransport/replayHeaderName``.
public final class HTTPFixture: Sendable {
    /// Whether a fixture records or replays.
    public enum Mode: String, Sendable, Hashable, CaseIterable {
        /// Replay the file; a missing file is an error.
        case replay
        /// Record, replacing the file.
        case record
        /// Record when the file is missing, else replay it: VCR's `once`.
        case once
    }

    /// The environment variable that chooses the mode when the code does not:
    /// `HTTPCORE_FIXTURES=replay`, `record` or `once`. Without it, `once`, except where the
    /// variable `CI` is set, where it is `replay`, so that a run in CI never records.
    public static let modeVariable = "HTTPCORE_FIXTURES"

    /// The fixture's name: its file is `<name>.har`.
    public let name: String
    /// The HAR file.
    public let file: URL
    /// Whether this fixture records (else it replays).
    public let isRecording: Bool
    /// The dispatcher of the clients it makes: subscribe observers to it to see their events.
    public let dispatcher: HTTPEventDispatcher
    /// The policy of the clients it makes, whose redactor the recording goes through.
    public let policy: HTTPCorePolicy
    private let replay: ReplayTransport?
    private let recorder: HARRecorder?

    /// The policy a fixture records with by default: the standard redactor, bodies captured
    /// up to 16 MiB, and every message of a stream kept (up to 100,000), so that a replay can
    /// give back what came.
    public static let recordingPolicy: HTTPCorePolicy = {
        var policy = HTTPCorePolicy(bodyCapture: .captured(maxBytes: 16 << 20))
        policy.streamMessages = HTTPCorePolicy.StreamMessageCapture(maxCount: 100_000, maxBytes: 1 << 20)
        return policy
    }()

    /// A fixture in `directory`, recording or replaying as `mode` says.
    ///
    /// - Parameters:
    ///   - name: The fixture's name; its file is `<name>.har` in `directory`.
    ///   - directory: Where fixture files are.
    ///   - mode: Whether to record or replay; by default as ``modeVariable`` says.
    ///   - matching: How a replay matches requests to recorded exchanges.
    ///   - timing: When a replayed response's pieces come.
    ///   - policy: The clients' policy; its redactor is the recording's.
    /// - Throws: `invalid_fixture` when ``modeVariable`` holds
    ///   another value than a mode's name, when the mode is `replay` and the file is missing,
    ///   or when the file is not a HAR file (naming the field).
    public init(
        _ name: String, directory: URL, mode: Mode? = nil, matching: ReplayMatching = ReplayMatching(),
        timing: ReplayTransport.Timing = .immediate, policy: HTTPCorePolicy = HTTPFixture.recordingPolicy
    ) throws(HTTPError) {
        self.name = name
        file = directory.appendingPathComponent("\(name).har")
        self.policy = policy
        dispatcher = HTTPEventDispatcher()
        let exists = FileManager.default.fileExists(atPath: file.path)
        let resolved: Mode
        if let mode { resolved = mode } else { resolved = try Self.environmentMode() }
        switch resolved {
        case .record:
            isRecording = true
        case .once:
            isRecording = !exists
        case .replay:
            guard exists else {
                throw .transport(.invalidFixture, message: "\(file.path) does not exist: record it with \(Self.modeVariable)=once (or record)")
            }
            isRecording = false
        }
        if isRecording {
            let recorder = HARRecorder(capacity: 100_000, maxStreamMessagesPerEntry: 100_000)
            dispatcher.subscribe(recorder)
            self.recorder = recorder
            replay = nil
        } else {
            recorder = nil
            replay = try ReplayTransport(harFile: file, matching: matching, timing: timing, redactor: policy.redactor)
        }
    }

    /// The mode ``modeVariable`` says, or the default.
    static func environmentMode(_ environment: [String: String] = ProcessInfo.processInfo.environment) throws(HTTPError) -> Mode {
        guard let value = environment[modeVariable], !value.isEmpty else { return environment["CI"] == nil ? .once : .replay }
        guard let mode = Mode(rawValue: value.lowercased()) else {
            let names = Mode.allCases.map(\.rawValue).joined(separator: ", ")
            throw .transport(.invalidFixture, message: "\(modeVariable)=\(value): the mode is one of \(names)")
        }
        return mode
    }

    /// A client answered by the fixture when it replays, or by `live` when it records.
    ///
    /// - Parameters:
    ///   - live: The transport a recording goes through; made only when recording.
    ///   - middlewares: The client's middlewares.
    /// - Returns: A client with the fixture's ``dispatcher`` and ``policy``.
    public func client<Live: HTTPTransport>(
        recordingThrough live: @autoclosure () -> Live, middlewares: [any HTTPMiddleware] = []
    ) -> HTTPTransportClient<FixtureTransport<Live>> {
        let transport = replay.map { FixtureTransport<Live>(replay: $0) } ?? FixtureTransport(live: live())
        return HTTPTransportClient(transport: transport, middlewares: middlewares, dispatcher: dispatcher, policy: policy)
    }

    /// The recorder whose entries ``save()`` writes, when recording.
    var recorderForSaving: HARRecorder? { recorder }

    /// How many recorded exchanges no request asked for yet, when replaying; 0 when recording.
    public var unansweredCount: Int { replay?.unansweredCount ?? 0 }
}
