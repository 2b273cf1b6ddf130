import Foundation
import HTTPCore

/// One accepted connection of a ``LoopbackHTTPServer``, served on its own thread.
///
/// Reads requests one after another, records each, runs the matching handler and writes the
/// answer, until the client or the server ends the connection. Only this thread reads, writes
/// and closes the socket; `stop()` merely shuts it down to wake a blocked read.
final class LoopbackConnection {
    private let core: LoopbackServerCore
    private let socket: Socket
    private let id: Int
    private let reader: HTTPRequestReader

    /// How a connection goes on after an exchange.
    enum Next {
        case keepAlive
        /// Everything was sent: end the sending side, let the client read it, then close.
        case close
        /// Close at once; the exchange was cut short.
        case abort
        /// Close with a reset.
        case reset
    }

    init(core: LoopbackServerCore, socket: Socket, id: Int) {
        self.core = core
        self.socket = socket
        self.id = id
        reader = HTTPRequestReader(socket: socket)
    }

    func run() {
        var next = Next.keepAlive
        while case .keepAlive = next {
            next = exchange()
        }
        end(next)
    }

    private func exchange() -> Next {
        let continueLine = Data("HTTP/1.1 100 Continue\r\n\r\n".utf8)
        let outcome = reader.next(sendContinue: { socket.sendAll(continueLine) }) { method, target in
            core.route(method: method, path: LoopbackRequest.split(target).path)?.requestBody ?? .whole
        }
        switch outcome {
        case .endOfStream:
            return .abort
        case .malformed(let status, let message):
            var response = LoopbackResponse.text(message, status: status)
            response.headers.set(name: "Connection", value: "close")
            return send(response, method: "GET", clientWantsClose: true)
        case .request(let parsed):
            let request =
                if let digest = parsed.digest {
                    LoopbackRequest(
                        method: parsed.method, target: parsed.target, headers: parsed.headers, bodyDigest: digest, connectionID: id
                    )
                } else {
                    LoopbackRequest(method: parsed.method, target: parsed.target, headers: parsed.headers, body: parsed.body, connectionID: id)
                }
            core.record.withLock { $0.requests.append(request) }
            let clientWantsClose = Self.wantsClose(parsed)
            switch core.route(method: request.method, path: request.path)?.answer {
            case .response(let handler):
                return send(handler(request), method: request.method, clientWantsClose: clientWantsClose)
            case .streaming(let handler):
                let writer = LoopbackResponseWriter(
                    socket: socket, lifecycle: core.lifecycle, method: request.method, clientWantsClose: clientWantsClose
                )
                do {
                    try handler(request, writer)
                    return writer.finish(threw: false)
                } catch {
                    return writer.finish(threw: true)
                }
            case nil:
                return send(.text("not found", status: 404), method: request.method, clientWantsClose: clientWantsClose)
            }
        }
    }

    private static func wantsClose(_ request: HTTPRequestReader.Request) -> Bool {
        let tokens = request.headers.values(for: "Connection")
            .flatMap { $0.split(separator: ",") }
            .map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        if tokens.contains("close") { return true }
        return request.minorVersion == 0 && !tokens.contains("keep-alive")
    }

    // MARK: - Writing

    private func send(_ response: LoopbackResponse, method: String, clientWantsClose: Bool) -> Next {
        if response.delay > 0, !core.lifecycle.pause(response.delay) { return .abort }
        switch response.fault {
        case .reset:
            return .reset
        case .raw(let bytes):
            socket.sendAll(bytes)
            return .close
        case .closeAfterHead, .closeAfterBodyBytes, nil:
            break
        }

        let status = response.status
        let bodyAllowed = !(100..<200).contains(status) && status != 204 && status != 304
        let sendsBody = bodyAllowed && method != "HEAD"
        let closes =
            clientWantsClose || response.fault != nil || core.lifecycle.isStopped
            || response.headers.values(for: "Connection").contains { $0.lowercased().contains("close") }

        var headers = response.headers
        headers.remove(name: "Content-Length")
        headers.remove(name: "Transfer-Encoding")
        var chunkSize: Int?
        switch response.transfer {
        case .contentLength:
            if bodyAllowed { headers.add(name: "Content-Length", value: String(response.body.count)) }
        case .chunked(let size):
            chunkSize = max(1, size)
            if bodyAllowed { headers.add(name: "Transfer-Encoding", value: "chunked") }
        }
        if closes, !headers.values(for: "Connection").contains(where: { $0.lowercased().contains("close") }) {
            headers.add(name: "Connection", value: "close")
        }
        let reason = response.reason ?? LoopbackResponse.standardReason(for: status)
        var headText = "HTTP/1.1 \(status) \(reason)\r\n"
        for field in headers.fields {
            headText += "\(field.name): \(field.value)\r\n"
        }
        headText += "\r\n"
        let head = Data(headText.utf8)

        guard sendsBody else {
            return socket.sendAll(head) ? (closes ? .close : .keepAlive) : .abort
        }
        let pieces = Self.wirePieces(of: response.body, drip: response.drip, chunkSize: chunkSize)

        switch response.fault {
        case .closeAfterHead:
            socket.sendAll(head)
            return .close
        case .closeAfterBodyBytes(let count):
            var wire = head
            for piece in pieces { wire.append(piece) }
            socket.sendAll(wire.prefix(head.count + max(0, count)))
            return .close
        case .reset, .raw, nil:
            break
        }

        for (index, piece) in pieces.enumerated() {
            if index == 0 {
                // Small answers leave in one write; large bodies are not copied behind the head.
                let sent = piece.count < 64 * 1024 ? socket.sendAll(head + piece) : socket.sendAll(head) && socket.sendAll(piece)
                guard sent else { return .abort }
            } else {
                guard core.lifecycle.pause(response.drip?.interval ?? 0), socket.sendAll(piece) else { return .abort }
            }
        }
        return closes ? .close : .keepAlive
    }

    /// The body as it goes on the wire, split into the pieces a drip sends one by one; chunked
    /// framing (including the last chunk) is already applied.
    private static func wirePieces(of body: Data, drip: LoopbackResponse.Drip?, chunkSize: Int?) -> [Data] {
        let count = max(1, drip?.chunks ?? 1)
        var pieces: [Data] = []
        pieces.reserveCapacity(count)
        for index in 0..<count {
            let lower = body.startIndex + body.count * index / count
            let upper = body.startIndex + body.count * (index + 1) / count
            let piece = body[lower..<upper]
            guard let chunkSize else {
                pieces.append(Data(piece))
                continue
            }
            var framed = Data()
            var offset = piece.startIndex
            while offset < piece.endIndex {
                let end = min(offset + chunkSize, piece.endIndex)
                framed.append(Data(String(end - offset, radix: 16).utf8))
                framed.append(contentsOf: [13, 10])
                framed.append(piece[offset..<end])
                framed.append(contentsOf: [13, 10])
                offset = end
            }
            if index == count - 1 {
                framed.append(Data("0\r\n\r\n".utf8))
            }
            pieces.append(framed)
        }
        return pieces
    }

    // MARK: - Closing

    private func end(_ next: Next) {
        switch next {
        case .keepAlive, .abort:
            break
        case .reset:
            socket.setResetOnClose()
        case .close:
            lingeringClose()
        }
        // Unregistered only now, so `stop()` can still wake a lingering read, and never
        // shuts a descriptor number after it was closed and reused.
        core.lifecycle.unregister(id: id)
        socket.close()
    }

    /// Ends the sending side and reads until the client closes (at most two seconds), so that
    /// unread request bytes do not make the kernel reset the connection before the client has
    /// read the answer.
    private func lingeringClose() {
        socket.shutdownWrite()
        let deadline = Date(timeIntervalSinceNow: 2)
        let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: 16 * 1024, alignment: 1)
        defer { scratch.deallocate() }
        while Date() < deadline, !core.lifecycle.isStopped {
            guard socket.waitReadable(milliseconds: 100) else { continue }
            if socket.receive(into: scratch) <= 0 { return }
        }
    }
}
