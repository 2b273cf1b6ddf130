import Foundation
@_spi(Transports) import HTTPCore
import HTTPCoreObservation
import HTTPCoreLoopback
import InMemoryTracing
import Logging
import Tracing
import XCTest

/// The process's tracer, bootstrapped once: the frameworks' tracing middlewares read the
/// global one.
enum RecipeTracing {
    static let tracer: InMemoryTracer = {
        let tracer = InMemoryTracer()
        InstrumentationSystem.bootstrap(tracer)
        return tracer
    }()
}

/// Log lines a ``RecordingLogHandler`` kept.
final class LogLines: @unchecked Sendable {   // safe: `stored` is only touched under `lock`
    typealias Line = (message: String, metadata: Logger.Metadata)
    private let lock = NSLock()
    private var stored: [Line] = []

    func append(_ line: Line) { lock.withLock { stored.append(line) } }
    var all: [Line] { lock.withLock { stored } }
}

/// A log handler that keeps every line.
struct RecordingLogHandler: LogHandler {
    let lines: LogLines
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        lines.append(("\(event.message)", metadata.merging(event.metadata ?? [:]) { $1 }))
    }
}

/// What serving one request that called `upstreamURL` left: HTTPCore's upstream span is the
/// incoming request's only client child, and the upstream exchange's one log line carries the
/// incoming request's id.
func assertTheUpstreamCallIsTheIncomingRequestsChild(
    _ tracer: InMemoryTracer, upstreamURL: URL, lines: LogLines, file: StaticString = #filePath, line: UInt = #line
) throws {
    let server = try XCTUnwrap(tracer.finishedSpans.last { $0.kind == .server }, file: file, line: line)
    let serverID = try XCTUnwrap(server.context.inMemorySpanContext?.spanID, file: file, line: line)
    let children = tracer.finishedSpans.filter { $0.kind == .client && $0.context.inMemorySpanContext?.parentSpanID == serverID }
    XCTAssertEqual(children.map { $0.attributes["url.full"]?.toSpanAttribute() }, [.string(upstreamURL.absoluteString)], file: file, line: line)
    let logged = try XCTUnwrap(lines.all.first, file: file, line: line)
    XCTAssertTrue(logged.message.hasPrefix("GET \(upstreamURL) -> 201 ("), logged.message, file: file, line: line)
    XCTAssertNotNil(logged.metadata["request_id"], "the incoming request's id: \(logged.metadata)", file: file, line: line)
}

/// The size of the upstream's `/export` body.
let exportSize: Int64 = 4 << 20

/// Serves `GET /export` on `upstream`: a 206 with its own headers and a body of known length
/// (``exportSize`` bytes of the loopback pattern), for a proxy to pass through.
func routeExport(on upstream: LoopbackHTTPServer) {
    upstream.route("GET", "/export", streaming: { _, writer in
        try writer.writeHead(status: 206, headers: ["Content-Type": "text/csv", "X-Export": "7"], framing: .contentLength(exportSize))
        try writer.writePattern(byteCount: exportSize)
    })
}

/// A dispatcher whose upstream exchanges' ends are kept as lines: the terminal event's name,
/// and its response bytes as `bytes`.
func dispatcherRecordingEnds() -> (HTTPEventDispatcher, LogLines) {
    let dispatcher = HTTPEventDispatcher()
    let ends = LogLines()
    dispatcher.subscribe { event in
        switch event.step {
        case .succeeded(let response, _), .failed(_, let response?, _), .cancelled(let response?, _):
            ends.append((event.name.rawValue, ["bytes": "\(response.bodyByteCount)"]))
        case .failed(_, nil, _), .cancelled(nil, _):
            ends.append((event.name.rawValue, ["bytes": "-1"]))
        case .created, .started, .received, .message, .retried:
            break
        }
    }
    return (dispatcher, ends)
}

/// The body bytes copied between AsyncHTTPClient's buffers and HTTPCore's chunks while `work`
/// ran, and those handed on as AHC's own buffers (``HTTPBodyCopies``): a proxy that copies
/// nothing copies 0 and hands on every byte.
func countingCopies(_ work: () async throws -> Void) async throws -> (copied: Int, handedOver: Int) {
    let copied = HTTPBodyCopies.copiedByteCount
    let handedOver = HTTPBodyCopies.handedOverByteCount
    try await work()
    return (HTTPBodyCopies.copiedByteCount - copied, HTTPBodyCopies.handedOverByteCount - handedOver)
}

/// An upstream header value that HTTP does not allow and AsyncHTTPClient passes on: a trailing
/// space (RFC 9110 field values neither begin nor end with whitespace).
let invalidUpstreamHeader = (name: "X-Note", value: "spaced ")

/// Serves `GET /export` on `upstream` as ``routeExport(on:)`` does, with the header
/// ``invalidUpstreamHeader`` among its own.
func routeExportWithAnInvalidHeader(on upstream: LoopbackHTTPServer) {
    upstream.route("GET", "/export", streaming: { _, writer in
        let headers: HTTPHeaders = ["Content-Type": "text/csv", invalidUpstreamHeader.name: invalidUpstreamHeader.value]
        try writer.writeHead(status: 200, headers: headers, framing: .contentLength(exportSize))
        try writer.writePattern(byteCount: exportSize)
    })
}

/// What a proxy answers for ``invalidUpstreamHeader``: the field and the rule it breaks.
let invalidUpstreamHeaderReason = "the upstream's response cannot be passed on: the value of the field \"X-Note\" has a byte HTTP does not allow"

/// The JSON object of a framework's error body.
func errorObject(_ body: Data) throws -> [String: Any] {
    try XCTUnwrap(JSONSerialization.jsonObject(with: body) as? [String: Any])
}
