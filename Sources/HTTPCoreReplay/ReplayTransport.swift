import Foundation
import HTTPCore
import HTTPCoreConcurrency
import HTTPCoreRedaction

/// A transport that answers from a HAR file and never from the network.
///
/// Each request is answered by the first recorded exchange that ``ReplayMatching`` says
/// matches it and that has not answered one yet, so a request sent three times gets the three
/// recorded answers in their order. What the recording held comes back as it came:
///
/// - a response with its status, headers and body; a streamed one (server-sent events, JSON
///   lines) as its recorded messages, one chunk each, with the time between them when
///   ``Timing/recorded``;
/// - a failure as the same ``/HTTPCore/HTTPError`` code (a timeout, a refused connection), and
///   a body cut after its head as that body, then the error;
/// - in Chrome's DevTools exports, a `net::ERR_…` failure as the code it means.
///
/// Each replayed response carries the header ``replayHeaderName``, `fixture.har#3`: the file
/// and the entry that answered it, for observers and assertions to tell a replayed exchange
/// from a live one. A request that no entry answers fails with
/// `not_recorded`, naming the closest entry and why it did not match.
///
/// ```swift
/// let transport = try ReplayTransport(harFile: URL(fileURLWithPath: "Fixtures/users.har"))
/// let client = HTTPTransportClient(transport: transport)
/// ```
public struct ReplayTransport: HTTPTransport {
    /// When a replayed response's pieces come.
    public enum Timing: Sendable, Hashable {
        /// At once.
        case immediate
        /// With the recorded wait before the head and the recorded time between messages.
        case recorded
    }

    /// The header each replayed response carries: `X-HTTPCore-Replay: <file>#<entry index>`.
    public static let replayHeaderName = "X-HTTPCore-Replay"

    /// The file's name, as errors and ``replayHeaderName`` give it.
    let name: String
    /// How requests are matched to recorded exchanges.
    let matching: ReplayMatching
    /// When the pieces of a replayed response come.
    let timing: Timing
    private let exchanges: [RecordedExchange]
    private let redactor: Redactor
    /// Which entries answered a request already.
    private let answered: Locked<[Bool]>

    /// The most bytes of a streamed request body read to match it: 64 MiB.
    static let maximumMatchedBodyBytes = 64 << 20

    /// A transport answering from the HAR file at `harFile`.
    ///
    /// - Parameters:
    ///   - harFile: A HAR 1.2 file: one this package wrote, or one from Chrome's DevTools.
    ///   - matching: How requests are matched; by method and URL by default.
    ///   - timing: When the pieces of a response come; at once by default.
    ///   - redactor: The redactor the recording went through, applied to each request before
    ///     it is compared; the standard one by default.
    /// - Throws: `invalid_fixture` when the file cannot be read or
    ///   a field breaks HAR's rules, naming the field.
    public init(harFile: URL, matching: ReplayMatching = ReplayMatching(), timing: Timing = .immediate, redactor: Redactor = .standard) throws(HTTPError) {
        let data: Data
        do {
            data = try Data(contentsOf: harFile)
        } catch {
            throw .transport(.invalidFixture, message: "\(harFile.path): cannot be read: \(error.localizedDescription)", underlyingError: error)
        }
        try self.init(har: data, name: harFile.lastPathComponent, matching: matching, timing: timing, redactor: redactor)
    }

    /// A transport answering from a HAR document in memory.
    ///
    /// - Parameters:
    ///   - har: The HAR 1.2 document's bytes.
    ///   - name: Its name in errors and in ``replayHeaderName``.
    ///   - matching: How requests are matched; by method and URL by default.
    ///   - timing: When the pieces of a response come; at once by default.
    ///   - redactor: The redactor the recording went through; the standard one by default.
    /// - Throws: `invalid_fixture` naming the field that breaks HAR's rules.
    public init(har: Data, name: String, matching: ReplayMatching = ReplayMatching(), timing: Timing = .immediate, redactor: Redactor = .standard) throws(HTTPError) {
        self.name = name
        self.matching = matching
        self.timing = timing
        self.redactor = redactor
        exchanges = try RecordedExchange.entries(in: har, name: name)
        answered = Locked(Array(repeating: false, count: exchanges.count))
    }

    /// How many recorded exchanges have not answered a request yet: 0 once a test sent every
    /// request its fixture holds.
    public var unansweredCount: Int {
        answered.withLock { $0.count { !$0 } }
    }

    /// Answers `request` with the first unanswered recorded exchange that matches it.
    ///
    /// - Parameters:
    ///   - request: The request to answer.
    ///   - body: Its streamed body, read whole (up to 64 MiB) to match it.
    /// - Returns: The recorded head, with ``replayHeaderName``, and the recorded body.
    /// - Throws: The recorded failure; `not_recorded` when no
    ///   recorded exchange answers the request.
    public func perform(_ request: HTTPRequest, body: HTTPBody?) async throws -> (HTTPResponse.Head, HTTPBody) {
        let replayed = try await replayedRequest(request, body: body)
        let exchange = try answer(replayed)
        if timing == .recorded, exchange.headDelay > 0 { try await Task.sleep(for: .seconds(exchange.headDelay)) }
        switch exchange.outcome {
        case .failed(let error):
            throw error
        case .response(let response):
            return (head(of: response, for: request, exchange: exchange), replayedBody(of: response, failure: nil))
        case .failedAfterHead(let response, let error):
            return (head(of: response, for: request, exchange: exchange), replayedBody(of: response, failure: error))
        }
    }

    /// `request` redacted as the recorded ones were, its body read.
    private func replayedRequest(_ request: HTTPRequest, body: HTTPBody?) async throws -> ReplayedRequest {
        var data = request.body
        if let body { data = try await body.collect(upTo: Self.maximumMatchedBodyBytes) }
        let contentType = request.headers["Content-Type"]
        var headers = HTTPHeaders()
        for field in request.headers { headers.add(name: field.name, value: redactor.redactedHeaderValue(field.value, name: field.name)) }
        return ReplayedRequest(
            method: request.method.rawValue, url: String(redactor.redactedURL(request.url).prefix { $0 != "#" }), headers: headers,
            body: data.map { redactor.redactedBody($0, contentType: contentType) }, contentType: contentType
        )
    }

    /// The first unanswered exchange that matches, now answered; else the error naming the closest.
    private func answer(_ request: ReplayedRequest) throws(HTTPError) -> RecordedExchange {
        let differences = exchanges.map { matching.difference(between: request, and: $0.request) }
        let index = answered.withLock { answered -> Int? in
            guard let index = exchanges.indices.first(where: { !answered[$0] && differences[$0] == nil }) else { return nil }
            answered[index] = true
            return index
        }
        if let index { return exchanges[index] }
        throw notRecorded(request, differences: differences)
    }

    private func notRecorded(_ request: ReplayedRequest, differences: [ReplayDifference?]) -> HTTPError {
        let what = "no recorded exchange in \(name) answers \(request.method) \(RecordedExchange.withoutQuery(request.url))"
        let matches = exchanges.indices.filter { differences[$0] == nil }
        if matches.count == 1 {
            return .transport(.notRecorded, message: "\(what) again: entry \(matches[0]) matches it and answered an earlier request")
        }
        if !matches.isEmpty {
            let entries = matches.map { String($0) }.joined(separator: ", ")
            return .transport(.notRecorded, message: "\(what) again: entries \(entries) match it and answered earlier requests")
        }
        guard let closest = exchanges.indices.min(by: { differences[$0]! < differences[$1]! }) else {
            return .transport(.notRecorded, message: "\(what): it holds no exchanges")
        }
        return .transport(.notRecorded, message: "\(what); the closest, \(exchanges[closest].summary), differs: \(differences[closest]!.reason)")
    }

    private func head(of response: RecordedExchange.Response, for request: HTTPRequest, exchange: RecordedExchange) -> HTTPResponse.Head {
        var headers = response.headers
        headers.add(name: Self.replayHeaderName, value: "\(name)#\(exchange.index)")
        return HTTPResponse.Head(requestID: request.id, statusCode: response.statusCode, headers: headers, url: request.url)
    }

    private func replayedBody(of response: RecordedExchange.Response, failure: HTTPError?) -> HTTPBody {
        if failure == nil, response.pieces.count <= 1, timing == .immediate {
            return HTTPBody(response.pieces.first?.bytes ?? [])
        }
        let chunks = ReplayedChunks(pieces: response.pieces, isTimed: timing == .recorded, failure: failure)
        return HTTPBody(length: .unknown) { chunks }
    }
}
