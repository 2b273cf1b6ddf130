import Foundation
import HTTPCore

/// Reads HTTP/1.x requests, one after another, from one connection's byte stream.
///
/// Used only by the connection's own thread. It buffers what it reads past a request, so
/// pipelined requests are not lost.
final class HTTPRequestReader {
    /// A request head and its complete body, or only its digest.
    struct Request {
        var method: String
        var target: String
        var minorVersion: Int
        var headers: HTTPHeaders
        var body: Data
        /// Set instead of `body` when the route records only a digest.
        var digest: LoopbackBodyDigest?
    }

    /// The result of trying to read the next request.
    enum Outcome {
        case request(Request)
        /// The peer closed (or the server shut the socket) before a complete request.
        case endOfStream
        /// The bytes are not a request this reader accepts: answer `status` and close.
        case malformed(status: Int, message: String)
    }

    static let maxHeadBytes = 64 * 1024
    static let maxBodyBytes = 256 * 1024 * 1024

    private let socket: Socket
    private var buffer: [UInt8] = []
    private var start = 0
    private let chunk: UnsafeMutableRawBufferPointer
    /// Why `readLine` last returned `nil`: end of stream, or a head too large to accept.
    private var lineFailure: Outcome = .endOfStream

    init(socket: Socket) {
        self.socket = socket
        chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 1)
    }

    deinit {
        chunk.deallocate()
    }

    /// Reads the next request; `sendContinue` is called before reading a body the client is
    /// holding back with `Expect: 100-continue`, and returns `false` if the write failed.
    /// `recording` says, from the method and target, whether to keep the body or only its digest.
    func next(
        sendContinue: () -> Bool,
        recording: (_ method: String, _ target: String) -> LoopbackRequest.BodyRecording
    ) -> Outcome {
        let head: (method: String, target: String, minorVersion: Int, headers: HTTPHeaders)
        switch readHead() {
        case .success(let parsed): head = parsed
        case .failure(let failure): return failure.outcome
        }

        let framing: BodyFraming
        switch Self.bodyFraming(head.headers) {
        case .success(let parsed): framing = parsed
        case .failure(let failure): return failure.outcome
        }
        let keepsBody = recording(head.method, head.target) == .whole
        if keepsBody, case .length(let length) = framing, length > Self.maxBodyBytes {
            return .malformed(status: 413, message: "request body too large")
        }

        let hasBody: Bool
        switch framing {
        case .length(let length): hasBody = length > 0
        case .chunked: hasBody = true
        }
        if hasBody, head.minorVersion >= 1,
            head.headers.values(for: "Expect").contains(where: { $0.lowercased() == "100-continue" })
        {
            guard sendContinue() else { return .endOfStream }
        }

        var sink = keepsBody ? BodySink.whole(Data()) : BodySink.digest(LoopbackBodyDigest())
        switch framing {
        case .length(let length):
            guard readBytes(length, into: &sink) else { return .endOfStream }
        case .chunked:
            if case .failure(let failure) = readChunkedBody(into: &sink) { return failure.outcome }
        }
        var request = Request(
            method: head.method,
            target: head.target,
            minorVersion: head.minorVersion,
            headers: head.headers,
            body: Data()
        )
        switch sink {
        case .whole(let body): request.body = body
        case .digest(let digest): request.digest = digest
        }
        return .request(request)
    }

    /// Where body bytes go as they are read.
    private enum BodySink {
        case whole(Data)
        case digest(LoopbackBodyDigest)

        var count: Int64 {
            switch self {
            case .whole(let body): Int64(body.count)
            case .digest(let digest): digest.byteCount
            }
        }

        mutating func append(_ bytes: ArraySlice<UInt8>) {
            switch self {
            case .whole(var body):
                // Taken out of the enum first, so appending does not copy the whole body.
                self = .digest(LoopbackBodyDigest())
                body.append(contentsOf: bytes)
                self = .whole(body)
            case .digest(var digest):
                digest.update(bytes)
                self = .digest(digest)
            }
        }
    }

    // MARK: - Head

    private struct Failure: Error {
        var outcome: Outcome
    }

    private enum BodyFraming {
        case length(Int)
        case chunked
    }

    private func readHead() -> Result<(String, String, Int, HTTPHeaders), Failure> {
        var headBytes = 0
        var requestLine: String?
        // RFC 9112 asks servers to ignore empty lines before the request line.
        while requestLine == nil {
            guard let line = readLine(counting: &headBytes) else { return .failure(Failure(outcome: lineFailure)) }
            if !line.isEmpty { requestLine = String(decoding: line, as: UTF8.self) }
        }
        let parts = requestLine?.split(separator: " ", omittingEmptySubsequences: false) ?? []
        guard parts.count == 3, Self.isToken(parts[0]), !parts[1].isEmpty,
            !parts[1].contains(where: { $0 == "\t" })
        else {
            return .failure(Failure(outcome: .malformed(status: 400, message: "malformed request line")))
        }
        let minorVersion: Int
        switch parts[2] {
        case "HTTP/1.1": minorVersion = 1
        case "HTTP/1.0": minorVersion = 0
        default:
            return .failure(Failure(outcome: .malformed(status: 400, message: "unsupported HTTP version")))
        }

        var headers = HTTPHeaders()
        while true {
            guard let line = readLine(counting: &headBytes) else { return .failure(Failure(outcome: lineFailure)) }
            if line.isEmpty { break }
            guard let colon = line.firstIndex(of: UInt8(ascii: ":")), colon > line.startIndex,
                Self.isToken(line[line.startIndex..<colon])
            else {
                return .failure(Failure(outcome: .malformed(status: 400, message: "malformed header field")))
            }
            let name = String(decoding: line[line.startIndex..<colon], as: UTF8.self)
            let value = Self.trimmed(line[line.index(after: colon)...])
            headers.add(name: name, value: String(decoding: value, as: UTF8.self))
        }
        return .success((String(parts[0]), String(parts[1]), minorVersion, headers))
    }

    /// The next line without its CRLF (or bare LF), or `nil` at end of stream or when the head
    /// grows past `maxHeadBytes`; `lineFailure` then says which.
    private func readLine(counting headBytes: inout Int) -> ArraySlice<UInt8>? {
        while true {
            if let newline = buffer[start...].firstIndex(of: UInt8(ascii: "\n")) {
                var end = newline
                if end > start, buffer[end - 1] == UInt8(ascii: "\r") { end -= 1 }
                // A copy, so the buffer is not shared while it is compacted and refilled.
                let line = Array(buffer[start..<end])[...]
                headBytes += newline + 1 - start
                start = newline + 1
                guard headBytes <= Self.maxHeadBytes else {
                    lineFailure = .malformed(status: 431, message: "request head too large")
                    return nil
                }
                return line
            }
            guard headBytes + (buffer.count - start) <= Self.maxHeadBytes else {
                lineFailure = .malformed(status: 431, message: "request head too large")
                return nil
            }
            guard fill() else {
                lineFailure = .endOfStream
                return nil
            }
        }
    }

    private static func bodyFraming(_ headers: HTTPHeaders) -> Result<BodyFraming, Failure> {
        let transferEncodings = headers.values(for: "Transfer-Encoding")
            .flatMap { $0.split(separator: ",") }
            .map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        if !transferEncodings.isEmpty {
            guard transferEncodings.last == "chunked" else {
                return .failure(Failure(outcome: .malformed(status: 400, message: "unsupported transfer coding")))
            }
            return .success(.chunked)
        }
        let lengths = headers.values(for: "Content-Length")
            .flatMap { $0.split(separator: ",", omittingEmptySubsequences: false) }
            .map { $0.trimmingCharacters(in: .whitespaces) }
        guard let first = lengths.first else { return .success(.length(0)) }
        guard lengths.allSatisfy({ $0 == first }), first.count <= 18, !first.isEmpty,
            first.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }),
            let length = Int(first)
        else {
            return .failure(Failure(outcome: .malformed(status: 400, message: "invalid Content-Length")))
        }
        return .success(.length(length))
    }

    // MARK: - Body

    private func readChunkedBody(into body: inout BodySink) -> Result<Void, Failure> {
        var headBytes = 0
        while true {
            headBytes = 0
            guard let sizeLine = readLine(counting: &headBytes) else { return .failure(Failure(outcome: lineFailure)) }
            let sizeText = sizeLine.prefix { $0 != UInt8(ascii: ";") }
            let digits = Self.trimmed(sizeText[...])
            guard !digits.isEmpty, digits.count <= 15,
                let size = Int(String(decoding: digits, as: UTF8.self), radix: 16), size >= 0
            else {
                return .failure(Failure(outcome: .malformed(status: 400, message: "invalid chunk size")))
            }
            if size == 0 { break }
            if case .whole = body, body.count + Int64(size) > Int64(Self.maxBodyBytes) {
                return .failure(Failure(outcome: .malformed(status: 413, message: "request body too large")))
            }
            guard readBytes(size, into: &body) else { return .failure(Failure(outcome: .endOfStream)) }
            guard let end = readLine(counting: &headBytes) else { return .failure(Failure(outcome: lineFailure)) }
            guard end.isEmpty else {
                return .failure(Failure(outcome: .malformed(status: 400, message: "chunk not followed by CRLF")))
            }
        }
        // Trailer fields are read and dropped.
        headBytes = 0
        while true {
            guard let line = readLine(counting: &headBytes) else { return .failure(Failure(outcome: lineFailure)) }
            if line.isEmpty { return .success(()) }
        }
    }

    /// Passes exactly `count` bytes to `sink`; `false` when the stream ends first.
    private func readBytes(_ count: Int, into sink: inout BodySink) -> Bool {
        if case .whole(var data) = sink {
            sink = .digest(LoopbackBodyDigest())
            data.reserveCapacity(data.count + count)
            sink = .whole(data)
        }
        var remaining = count
        while remaining > 0 {
            if start == buffer.count, !fill() { return false }
            let take = min(remaining, buffer.count - start)
            sink.append(buffer[start..<(start + take)])
            start += take
            remaining -= take
        }
        return true
    }

    /// Appends what the socket has to the buffer; `false` at end of stream or on error.
    private func fill() -> Bool {
        if start == buffer.count {
            buffer.removeAll(keepingCapacity: true)
            start = 0
        } else if start > 64 * 1024 {
            buffer.removeFirst(start)
            start = 0
        }
        let count = socket.receive(into: chunk)
        guard count > 0 else { return false }
        buffer.append(contentsOf: UnsafeRawBufferPointer(rebasing: chunk[0..<count]))
        return true
    }

    // MARK: - Lexical rules

    private static func isToken(_ text: some Collection<UInt8>) -> Bool {
        !text.isEmpty && text.allSatisfy(isTokenByte)
    }

    private static func isToken(_ text: Substring) -> Bool {
        isToken(text.utf8)
    }

    private static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        default:
            "!#$%&'*+-.^_`|~".utf8.contains(byte)
        }
    }

    private static func trimmed(_ bytes: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        let isSpace = { (byte: UInt8) in byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
        guard let first = bytes.firstIndex(where: { !isSpace($0) }),
            let last = bytes.lastIndex(where: { !isSpace($0) })
        else { return [] }
        return bytes[first...last]
    }
}
