import Foundation
import HTTPCore
import HTTPCoreObservation
import HTTPCoreConcurrency
import HTTPCoreLoopback
import HTTPCoreTesting

/// Sends ``RequestFuzzCase``s through a client over a real transport, against a loopback
/// server of its own, and judges each outcome by the rules every client owes its caller:
/// - every error is an ``HTTPError`` that describes itself, with a message unless it is
///   `cancelled`, `timeout` or `invalid_response`;
/// - a request that ``HTTPRequest/validate()`` refuses fails with exactly that error, before
///   the transport sees it;
/// - a valid request that nothing cancels, with a generous timeout and a body that does not
///   throw, never ends in `other`: every failure is classified;
/// - the exchange emits exactly one terminal event;
/// - a URL the validation passes has, as Foundation reads it, an http(s) scheme, a host and
///   a port in range.
///
/// A crash or a hang is for the process around it to catch: see ``RequestFuzzProcess``.
public struct RequestFuzzer: Sendable {
    /// A broken rule, with the case that broke it.
    public struct Violation: Error, CustomStringConvertible {
        /// What happened, and which case.
        public let description: String
    }

    private let makeClient: @Sendable (HTTPEventDispatcher) -> any HTTPClient
    private let server: LoopbackHTTPServer

    /// A fuzzer whose clients `makeClient` builds, each with the dispatcher it is given.
    public init(makeClient: @escaping @Sendable (HTTPEventDispatcher) -> any HTTPClient) throws {
        self.makeClient = makeClient
        server = try LoopbackHTTPServer { server in
            server.route("/echo") { request in LoopbackResponse(body: request.body) }
            server.route("/status") { _ in LoopbackResponse(status: 503, body: Data("busy".utf8)) }
            server.route("/redirect") { _ in .redirect(to: "/echo") }
            server.route("/slow") { _ in
                var response = LoopbackResponse.text("late")
                response.delay = 0.2
                return response
            }
            server.route("/stream") { _ in
                var response = LoopbackResponse(body: Data(repeating: 0x62, count: 30_000))
                response.transfer = .chunked(chunkSize: 1_000)
                return response
            }
        }
    }

    /// The port of the fuzzer's server, which the cases aim at.
    public var port: UInt16 { server.port }

    /// Stops the fuzzer's server.
    public func stop() {
        server.stop()
    }

    /// Runs one case and returns how it ended, or throws ``Violation``.
    public func run(_ fuzzCase: RequestFuzzCase) async throws -> String {
        guard let request = fuzzCase.request else { return "url not parsed by Foundation" }
        // The validation reads the URL's text itself; Foundation must see what it sees.
        if request.validationProblem(bodyLength: Self.bodyLength(fuzzCase, request)) == nil {
            let url = request.url
            guard ["http", "https"].contains(url.scheme?.lowercased()), !(url.host ?? "").isEmpty, (1...65_535).contains(url.port ?? 80)
            else {
                let port = url.port.map(String.init) ?? "nil"
                throw violation(fuzzCase, "valid, yet Foundation reads scheme \(url.scheme ?? "nil"), host \(url.host ?? "nil"), port \(port)")
            }
        }
        let dispatcher = HTTPEventDispatcher()
        let observer = FuzzObserver(cancellingAt: fuzzCase.cancellation)
        dispatcher.subscribe(observer)
        let client = makeClient(dispatcher)
        let task = Task { () -> Result<String, any Error> in
            if fuzzCase.cancellation == .beforeSend { withUnsafeCurrentTask { $0?.cancel() } }
            do {
                return .success(try await Self.send(request, fuzzCase, through: client))
            } catch {
                return .failure(error)
            }
        }
        observer.attach(task)
        let outcome = await task.value
        let terminal = try await observer.recorder.waitForTerminalEvents(count: 1).filter(\.name.isTerminal)
        guard terminal.count == 1 else { throw violation(fuzzCase, "\(terminal.count) terminal events") }
        switch outcome {
        case .success(let summary):
            if let problem = request.validationProblem(bodyLength: Self.bodyLength(fuzzCase, request)) {
                throw violation(fuzzCase, "sent although invalid: \(problem)")
            }
            return summary
        case .failure(let error):
            return try judge(error, of: request, fuzzCase)
        }
    }

    private static func send(_ request: HTTPRequest, _ fuzzCase: RequestFuzzCase, through client: any HTTPClient) async throws -> String {
        switch fuzzCase.api {
        case .buffered:
            let response = try await client.send(request)
            return "\(response.statusCode), \(response.body.count) bytes"
        case .streamed:
            return try await client.send(request, body: makeBody(fuzzCase.body)) { response, body in
                if fuzzCase.cancellation == .beforeBody { withUnsafeCurrentTask { $0?.cancel() } }
                var count = 0
                for try await chunk in body {
                    count += chunk.count
                    if fuzzCase.cancellation == .afterFirstChunk { withUnsafeCurrentTask { $0?.cancel() } }
                }
                return "\(response.statusCode), \(count) bytes streamed"
            }
        }
    }

    /// The length of the body the case sends.
    private static func bodyLength(_ fuzzCase: RequestFuzzCase, _ request: HTTPRequest) -> HTTPBody.Length {
        fuzzCase.api == .streamed ? makeBody(fuzzCase.body)?.length ?? .known(0) : .known(Int64(request.body?.count ?? 0))
    }

    private static func makeBody(_ body: RequestFuzzCase.Body) -> HTTPBody? {
        switch body {
        case .none: return nil
        case .bytes(let count): return HTTPBody(Data(repeating: 0x61, count: count))
        case .single(let count):
            return HTTPBody(AsyncThrowingStream { continuation in
                continuation.yield(HTTPBody.ByteChunk(repeating: 0x61, count: count))
                continuation.finish()
            }, length: .known(Int64(count)))
        case .throwing(let chunks):
            return HTTPBody(AsyncThrowingStream { continuation in
                for _ in 0..<chunks { continuation.yield(HTTPBody.ByteChunk(repeating: 0x61, count: 10)) }
                continuation.finish(throwing: FuzzBodyFailure())
            }, length: .unknown)
        }
    }

    private func judge(_ error: any Error, of request: HTTPRequest, _ fuzzCase: RequestFuzzCase) throws -> String {
        guard let error = error as? HTTPError else { throw violation(fuzzCase, "threw \(type(of: error)), not an HTTPError: \(error)") }
        guard !error.description.isEmpty else { throw violation(fuzzCase, "an error without a description") }
        let quiet: Set<HTTPError.Code> = [.cancelled, .timeout, .invalidResponse]
        if !quiet.contains(error.code), error.message?.isEmpty ?? true { throw violation(fuzzCase, "\(error.code) without a message") }
        if let problem = request.validationProblem(bodyLength: Self.bodyLength(fuzzCase, request)) {
            guard error == problem else { throw violation(fuzzCase, "invalid as \(problem), but threw \(error)") }
            return "\(error)"
        }
        // The fuzzer's server never answers garbage: from it, an invalid response is a client's fault.
        let expectsClassification = fuzzCase.cancellation == .never && (request.timeout.map { $0 >= 30 } ?? true)
        if expectsClassification, error.code == .other || error.code == .invalidResponse, !Self.isThrowing(fuzzCase.body) {
            throw violation(fuzzCase, "an unclassified failure: \(error)")
        }
        return "\(error)"
    }

    private static func isThrowing(_ body: RequestFuzzCase.Body) -> Bool {
        if case .throwing = body { return true }
        return false
    }

    private func violation(_ fuzzCase: RequestFuzzCase, _ what: String) -> Violation {
        Violation(description: "\(what), in case \(fuzzCase)")
    }
}

/// What a fuzzed request body throws.
struct FuzzBodyFailure: Error, CustomStringConvertible {
    var description: String { "the fuzzed body failed on purpose" }
}

/// Records a case's events and cancels its task at the event the case names.
private final class FuzzObserver: HTTPObserver {
    /// The case's task, and whether its cancellation came before the task was known.
    private struct State {
        var task: Task<Result<String, any Error>, Never>?
        var isCancelRequested = false
    }

    let recorder = RecordingObserver()
    private let cancelsAt: HTTPEvent.Name?
    private let state = Locked(State())

    init(cancellingAt cancellation: RequestFuzzCase.Cancellation) {
        switch cancellation {
        case .atCreated: cancelsAt = .requestCreated
        case .atStarted: cancelsAt = .requestStarted
        case .atReceived: cancelsAt = .responseReceived
        default: cancelsAt = nil
        }
    }

    func attach(_ task: Task<Result<String, any Error>, Never>) {
        let cancelNow = state.withLock { state in
            state.task = task
            return state.isCancelRequested
        }
        if cancelNow { task.cancel() }
    }

    func handle(_ event: HTTPEvent) {
        recorder.handle(event)
        guard event.name == cancelsAt else { return }
        let task = state.withLock { state in
            state.isCancelRequested = true
            return state.task
        }
        task?.cancel()
    }
}
