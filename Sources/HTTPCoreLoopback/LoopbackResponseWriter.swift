import Foundation
import HTTPCore

/// Writes a streamed response of a ``LoopbackHTTPServer`` route piece by piece, straight to the
/// socket: the head, then body pieces, pauses, waits at gates, and a cut if the test wants one.
///
/// Given to a route registered with ``LoopbackHTTPServer/route(_:_:requestBody:streaming:)``; use
/// it only on that handler's thread and only until the handler returns. Each write blocks until
/// the kernel took the bytes, so a client that reads slowly slows the route down
/// (backpressure), and nothing but the piece being written is in memory: a 1 GiB
/// ``writePattern(byteCount:)`` costs no more than a 1 KiB one.
///
/// When the handler returns, the server ends the response: the last chunk for chunked framing,
/// nothing for `Content-Length`. A `Content-Length` body shorter than declared, a handler that
/// throws, or ``dropConnection()`` closes the connection where the body stopped, which the client
/// sees as a connection lost mid-body. A handler that writes no head gets a 500 written for it.
public final class LoopbackResponseWriter {
    /// How the body is delimited on the wire.
    public enum Framing: Sendable, Hashable {
        /// A `Content-Length` header of this many bytes.
        case contentLength(Int64)
        /// `Transfer-Encoding: chunked`; each `write(_:)` is one chunk, of unknown total length.
        case chunked
    }

    /// Why a write or a wait could not go on; the handler should let it propagate.
    public enum Error: Swift.Error, Sendable, Hashable, CustomStringConvertible {
        /// The client went away or the server stopped; the connection is closed.
        case connectionClosed
        /// A write or a head came in the wrong place: a second head, a body before the head, or
        /// more body than the `Content-Length` declared (nothing of it was written).
        case misuse(String)

        /// What happened, for failure messages.
        public var description: String {
            switch self {
            case .connectionClosed: "LoopbackResponseWriter: the connection is closed"
            case .misuse(let what): "LoopbackResponseWriter: \(what)"
            }
        }
    }

    private let socket: Socket
    private let lifecycle: LoopbackServerLifecycle
    private let sendsBody: Bool
    private let clientWantsClose: Bool
    private var framing: Framing?
    private var isClosed = false
    private var isDropped = false

    /// Body bytes written so far (without chunk framing).
    public private(set) var bodyByteCount: Int64 = 0

    init(socket: Socket, lifecycle: LoopbackServerLifecycle, method: String, clientWantsClose: Bool) {
        self.socket = socket
        self.lifecycle = lifecycle
        self.sendsBody = method != "HEAD"
        self.clientWantsClose = clientWantsClose
    }

    /// Writes the status line and headers; call once, before any body.
    ///
    /// `headers` must not carry framing: `Content-Length` and `Transfer-Encoding` are written from
    /// `framing`, and `Connection: close` is added when the client asked for it.
    public func writeHead(status: Int = 200, headers: HTTPHeaders = [:], framing: Framing) throws {
        guard self.framing == nil else { throw Error.misuse("a second head") }
        self.framing = framing
        var fields = headers
        fields.remove(name: "Content-Length")
        fields.remove(name: "Transfer-Encoding")
        switch framing {
        case .contentLength(let length): fields.add(name: "Content-Length", value: String(length))
        case .chunked: fields.add(name: "Transfer-Encoding", value: "chunked")
        }
        if clientWantsClose { fields.add(name: "Connection", value: "close") }
        var head = "HTTP/1.1 \(status) \(LoopbackResponse.standardReason(for: status))\r\n"
        for field in fields.fields {
            head += "\(field.name): \(field.value)\r\n"
        }
        head += "\r\n"
        try send(Data(head.utf8))
    }

    /// Writes body bytes (one chunk when chunked); blocks while the client is not reading.
    public func write(_ bytes: UnsafeRawBufferPointer) throws {
        guard let framing else { throw Error.misuse("a body before the head") }
        guard !bytes.isEmpty else { return }
        if case .contentLength(let length) = framing, bodyByteCount + Int64(bytes.count) > length {
            throw Error.misuse("\(bodyByteCount + Int64(bytes.count)) body bytes where Content-Length is \(length)")
        }
        bodyByteCount += Int64(bytes.count)
        guard sendsBody else { return }
        if case .chunked = framing {
            try send(Data((String(bytes.count, radix: 16) + "\r\n").utf8))
            try send(bytes)
            try send(Data("\r\n".utf8))
        } else {
            try send(bytes)
        }
    }

    /// Writes body bytes (one chunk when chunked).
    public func write(_ bytes: some ContiguousBytes) throws {
        try bytes.withUnsafeBytes { try write($0) }
    }

    /// Writes text as UTF-8 body bytes (one chunk when chunked), for server-sent events.
    public func write(_ text: String) throws {
        try write(Data(text.utf8))
    }

    /// Writes the next `byteCount` bytes of ``LoopbackBodyPattern``, continuing from the body
    /// bytes already written, in pieces of at most 65,521 bytes (one chunk each when chunked).
    public func writePattern(byteCount: Int64) throws {
        try LoopbackBodyPattern.withBytes(from: bodyByteCount, count: byteCount) { piece in
            try write(piece)
            return true
        }
    }

    /// Waits `seconds` between two pieces; throws ``Error/connectionClosed`` when the server stops.
    public func pause(_ seconds: TimeInterval) throws {
        guard lifecycle.pause(seconds) else { throw Error.connectionClosed }
    }

    /// Waits until `gate` opens; throws ``Error/connectionClosed`` when the server stops first.
    public func wait(for gate: LoopbackGate) throws {
        guard gate.wait() else { throw Error.connectionClosed }
    }

    /// Cuts the connection after what was written, without ending the body: the client sees the
    /// body break off (a dropped connection). Return from the handler after calling it.
    public func dropConnection() {
        isDropped = true
    }

    /// How the connection goes on once the handler returned (`throwing` an error or not).
    func finish(threw: Bool) -> LoopbackConnection.Next {
        if isClosed || threw || isDropped { return .abort }
        guard let framing else {
            var fallback = LoopbackResponse.text("the streaming route wrote no head", status: 500)
            fallback.headers.set(name: "Connection", value: "close")
            try? writeHead(status: 500, headers: fallback.headers, framing: .contentLength(Int64(fallback.body.count)))
            try? write(fallback.body)
            return .close
        }
        switch framing {
        case .chunked:
            if sendsBody, (try? send(Data("0\r\n\r\n".utf8))) == nil { return .abort }
        case .contentLength(let length):
            if sendsBody, bodyByteCount < length { return .abort }
        }
        return clientWantsClose || lifecycle.isStopped ? .close : .keepAlive
    }

    private func send(_ bytes: some ContiguousBytes) throws {
        guard !isClosed, !isDropped else { throw Error.connectionClosed }
        guard socket.sendAll(bytes) else {
            isClosed = true
            throw Error.connectionClosed
        }
    }
}
