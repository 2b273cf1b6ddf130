import Foundation
import HTTPCoreText

/// Splits a streamed response body into server-sent events or JSON lines as chunks pass,
/// keeping at most `maxBytes` of any line or event: memory stays bounded whatever the stream.
///
/// Server-sent events follow the WHATWG HTML "event stream" parsing rules, read through the
/// package's one framing of them (`EventStreamLine`, which the redactor reads too): lines end with
/// CRLF, LF or CR; `data:` lines are joined with newlines; `event:` and `id:` are kept; lines
/// starting with `:` are comments; a blank line ends an event, and one without data is not
/// dispatched; an unfinished event at the end of the stream is discarded; one leading UTF-8 byte
/// order mark is skipped; an `id:` whose value holds a NUL is ignored. JSON lines end with LF
/// (CRLF accepted); blank lines are skipped, and a last line without a newline counts.
///
/// Observers take what is over `maxBytes` cut (``Message/isTruncated``); the body's own
/// message sequences (`HTTPBody.serverSentEvents(maximumEventBytes:)`, `jsonLines(maximumLineBytes:)`)
/// refuse it instead, as soon as ``isReadingOverLimit`` or a message's ``Message/isOverLimit`` says so.
struct StreamMessageParser: Sendable {
    /// One message as read: raw data, capped.
    struct Message: Sendable {
        let kind: HTTPEvent.StreamMessage.Kind
        let eventType: String?
        let eventID: String?
        let data: Data
        let byteCount: Int
        let isTruncated: Bool
        /// Which way it went: a response's messages are all received.
        var direction: HTTPEvent.StreamMessage.Direction = .received
        /// A WebSocket message's type; `nil` for a response's messages.
        var opcode: HTTPEvent.StreamMessage.Opcode?
        /// Whether any of it was over the cap: its data (``isTruncated``), or a server-sent
        /// event's `event:` or `id:` value, which observers keep cut at the line's cap.
        var isOverLimit = false

        /// The message with at most `maxBytes` of its data, marked truncated when cut: what
        /// a parser capped at `maxBytes` would have read. The cut data is a copy, so an event
        /// that holds it does not keep the whole message alive.
        func prefix(_ maxBytes: Int) -> Message {
            guard data.count > maxBytes else { return self }
            let kept = data.prefix(max(0, maxBytes)).withUnsafeBytes { Data($0) }
            return Message(
                kind: kind, eventType: eventType, eventID: eventID, data: kept, byteCount: byteCount, isTruncated: true,
                direction: direction, opcode: opcode, isOverLimit: true
            )
        }
    }

    let kind: HTTPEvent.StreamMessage.Kind
    let maxBytes: Int

    /// The line being read: at most `maxBytes` kept; its wire bytes counted.
    private var line: [UInt8] = []
    private var isLineCut = false
    private var lineByteCount = 0
    /// Whether the previous chunk ended with CR: the line it ends is complete once the next
    /// byte tells whether an LF belongs to its end.
    private var endsWithCR = false
    /// Whether no line ended yet: the first line of a server-sent event stream may start with
    /// a byte order mark, which is not part of it.
    private var isFirstLine = true

    // The event being assembled (server-sent events).
    private var data: [UInt8] = []
    private var hasData = false
    private var isDataCut = false
    private var eventType: String?
    private var eventID: String?
    private var eventByteCount = 0
    /// Whether the event's `event:` or `id:` value was over `maxBytes`.
    private var isFieldOverLimit = false

    /// A parser for the streamed messages of a body of `contentType`; `nil` when its type
    /// carries none.
    init?(contentType: String?, maxBytes: Int) {
        guard let kind = HTTPEvent.StreamMessage.Kind(contentType: contentType) else { return nil }
        self.init(kind: kind, maxBytes: maxBytes)
    }

    /// A parser of messages framed as `kind`, whatever the body's type says. A WebSocket's
    /// messages come framed, so `.webSocket` is read as lines, as no caller asks.
    init(kind: HTTPEvent.StreamMessage.Kind, maxBytes: Int) {
        self.kind = kind
        self.maxBytes = max(0, maxBytes)
    }

    /// Whether the message being read is already over `maxBytes`, before it ends: a JSON
    /// line, a server-sent event's data, or the `data:`, `event:` or `id:` line being read. A
    /// reader that refuses such a message stops here instead of reading the rest of it; a
    /// comment or another field past the cap is skipped, as it would be anyway.
    var isReadingOverLimit: Bool {
        switch kind {
        case .jsonLine, .webSocket:
            return isLineCut
        case .serverSentEvent:
            guard !isDataCut, !isFieldOverLimit else { return true }
            guard isLineCut else { return false }
            let field = line.withUnsafeBufferPointer { EventStreamLine.field(of: $0[...]).field }
            return field == .data || field == .event || field == .id
        }
    }

    /// Reads a chunk, calling `emit` for each message it completes.
    mutating func feed(_ chunk: ArraySlice<UInt8>, _ emit: (Message) -> Void) {
        var rest = chunk
        if endsWithCR, let first = rest.first {
            endsWithCR = false
            lineByteCount += 1
            if first == UInt8(ascii: "\n") {
                lineByteCount += 1
                rest = rest.dropFirst()
            }
            endLine(emit)
        }
        while let (end, next) = rest.withUnsafeBufferPointer({ EventStreamLine.end(in: $0, from: 0) }) {
            append(rest.prefix(end))
            if end + 1 == rest.count, rest.last == UInt8(ascii: "\r") {
                endsWithCR = true
                return
            }
            lineByteCount += next - end
            endLine(emit)
            rest = rest.dropFirst(next)
        }
        append(rest)
    }

    /// The stream ended: a last JSON line without a newline counts; an unfinished
    /// server-sent event is discarded, as the standard says.
    mutating func finish(_ emit: (Message) -> Void) {
        if endsWithCR {
            endsWithCR = false
            lineByteCount += 1
            endLine(emit)
        }
        if kind == .jsonLine, lineByteCount > 0 { endLine(emit) }
    }

    private mutating func append(_ bytes: ArraySlice<UInt8>) {
        lineByteCount += bytes.count
        // A server-sent event line keeps room for its field name; its data is capped later.
        if !Self.append(bytes, to: &line, upTo: maxBytes + (kind == .serverSentEvent ? 64 : 0)) { isLineCut = true }
    }

    /// Appends what fits under `limit`; `false` when some of `bytes` did not fit.
    private static func append(_ bytes: some Collection<UInt8>, to buffer: inout [UInt8], upTo limit: Int) -> Bool {
        let room = limit - buffer.count
        guard bytes.count > room else {
            buffer.append(contentsOf: bytes)
            return true
        }
        buffer.append(contentsOf: bytes.prefix(max(0, room)))
        return false
    }

    private mutating func endLine(_ emit: (Message) -> Void) {
        defer {
            line.removeAll(keepingCapacity: line.count <= 4096)
            isLineCut = false
            lineByteCount = 0
        }
        if isFirstLine {
            isFirstLine = false
            if kind == .serverSentEvent, line.starts(with: [0xEF, 0xBB, 0xBF]) { line.removeFirst(3) }
        }
        switch kind {
        case .jsonLine, .webSocket:
            guard line.contains(where: { $0 != UInt8(ascii: " ") && $0 != UInt8(ascii: "\t") }) else { return }
            emit(Message(
                kind: kind, eventType: nil, eventID: nil, data: Data(line), byteCount: lineByteCount, isTruncated: isLineCut, isOverLimit: isLineCut
            ))
        case .serverSentEvent:
            eventByteCount += lineByteCount
            if line.isEmpty, !isLineCut {
                dispatchEvent(emit)
            } else {
                readField()
            }
        }
    }

    /// Applies one line of a server-sent event: `field: value` (one leading space dropped).
    private mutating func readField() {
        let (field, valueRange) = line.withUnsafeBufferPointer { EventStreamLine.field(of: $0[...]) }
        let value = line[valueRange]
        switch field {
        case .data:
            if hasData { appendData(CollectionOfOne(UInt8(ascii: "\n"))) }
            hasData = true
            appendData(value)
            if isLineCut { isDataCut = true }
        case .event:
            eventType = String(decoding: value, as: UTF8.self)
            if value.count > maxBytes { isFieldOverLimit = true }
        case .id:
            guard !value.contains(0) else { break }
            eventID = String(decoding: value, as: UTF8.self)
            if value.count > maxBytes { isFieldOverLimit = true }
        case .comment, .other: break
        }
    }

    private mutating func appendData(_ bytes: some Collection<UInt8>) {
        if !Self.append(bytes, to: &data, upTo: maxBytes) { isDataCut = true }
    }

    private mutating func dispatchEvent(_ emit: (Message) -> Void) {
        defer {
            data.removeAll(keepingCapacity: data.count <= 4096)
            hasData = false
            isDataCut = false
            eventType = nil
            eventID = nil
            eventByteCount = 0
            isFieldOverLimit = false
        }
        guard hasData else { return }
        emit(Message(
            kind: kind, eventType: eventType, eventID: eventID, data: Data(data), byteCount: eventByteCount, isTruncated: isDataCut,
            isOverLimit: isDataCut || isFieldOverLimit
        ))
    }
}
