#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import HTTPCoreLoopback

/// A blocking TCP client for asserting what a server puts on the wire, byte for byte.
///
/// Every read gives up after five seconds, so a test fails instead of hanging.
package final class RawHTTPConnection {
    /// A response as read off the wire.
    package struct Response {
        package var statusLine: String
        /// Header fields in order, repetitions kept.
        package var fields: [(name: String, value: String)]
        /// The body, de-chunked when it was chunked.
        package var body: Data
        /// The body bytes as they were framed on the wire.
        package var wireBody: Data

        package var status: Int { Int(statusLine.split(separator: " ")[1]) ?? 0 }

        package func values(_ name: String) -> [String] {
            fields.filter { $0.name.lowercased() == name.lowercased() }.map(\.value)
        }

        package var text: String { String(decoding: body, as: UTF8.self) }
    }

    package struct Failure: Error, CustomStringConvertible {
        package var description: String
    }

    private let descriptor: Int32
    private var buffer: [UInt8] = []

    package init(port: UInt16) throws {
        #if canImport(Darwin)
        descriptor = socket(AF_INET, SOCK_STREAM, 0)
        #else
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #endif
        guard descriptor >= 0 else { throw Failure(description: "socket() failed: errno \(errno)") }
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        _ = setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        #if canImport(Darwin)
        var one: Int32 = 1
        _ = setsockopt(descriptor, SOL_SOCKET, SO_NOSIGPIPE, &one, socklen_t(MemoryLayout<Int32>.size))
        #endif
        let descriptor = descriptor
        let connected = withLoopbackAddress(port: port) { connect(descriptor, $0, $1) }
        guard connected == 0 else {
            let code = errno
            _ = close(descriptor)
            throw Failure(description: "connect() failed: errno \(code)")
        }
    }

    deinit {
        _ = close(descriptor)
    }

    package func send(_ text: String) throws {
        try send(Data(text.utf8))
    }

    package func send(_ data: Data) throws {
        try data.withUnsafeBytes { bytes in
            var offset = 0
            while offset < bytes.count {
                #if canImport(Darwin)
                let written = Darwin.send(descriptor, bytes.baseAddress! + offset, bytes.count - offset, 0)
                #else
                let written = Glibc.send(descriptor, bytes.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL))
                #endif
                guard written > 0 else { throw Failure(description: "send() failed: errno \(errno)") }
                offset += written
            }
        }
    }

    /// Raises this process's soft limit on open files to at least `count` (within the hard
    /// limit): macOS starts test processes at 256, too few for hundreds of connections.
    package static func allowOpenFiles(_ count: Int) {
        var limit = rlimit()
        #if canImport(Darwin)
        let resource = RLIMIT_NOFILE
        #else
        let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
        #endif
        guard getrlimit(resource, &limit) == 0, limit.rlim_cur < rlim_t(count) else { return }
        limit.rlim_cur = min(rlim_t(count), limit.rlim_max)
        _ = setrlimit(resource, &limit)
    }

    /// Reads one response; `head` skips the body as a response to `HEAD` has none.
    package func readResponse(head: Bool = false) throws -> Response {
        let headText = try readHead()
        var lines = headText.components(separatedBy: "\r\n")
        let statusLine = lines.removeFirst()
        let fields = lines.map { line -> (String, String) in
            let colon = line.firstIndex(of: ":") ?? line.endIndex
            return (String(line[..<colon]), line[colon...].dropFirst().trimmingCharacters(in: .whitespaces))
        }
        var response = Response(statusLine: statusLine, fields: fields, body: Data(), wireBody: Data())
        let status = response.status
        if head || status == 204 || status == 304 || (100..<200).contains(status) { return response }
        if response.values("Transfer-Encoding").last?.lowercased() == "chunked" {
            while true {
                let sizeLine = try readLine()
                response.wireBody.append(Data((sizeLine + "\r\n").utf8))
                guard let size = Int(sizeLine, radix: 16) else { throw Failure(description: "bad chunk size \(sizeLine)") }
                if size == 0 {
                    let end = try readLine()
                    response.wireBody.append(Data((end + "\r\n").utf8))
                    return response
                }
                let chunk = try readBytes(size)
                response.body.append(chunk)
                response.wireBody.append(chunk)
                let crlf = try readLine()
                response.wireBody.append(Data((crlf + "\r\n").utf8))
            }
        }
        if let length = response.values("Content-Length").first.flatMap({ Int($0) }) {
            response.body = try readBytes(length)
        } else {
            response.body = try readToEnd()
        }
        response.wireBody = response.body
        return response
    }

    /// The head up to (not including) the empty line.
    package func readHead() throws -> String {
        var lines: [String] = []
        while true {
            let line = try readLine()
            if line.isEmpty { return lines.joined(separator: "\r\n") }
            lines.append(line)
        }
    }

    /// Everything until the server closes the connection.
    package func readToEnd() throws -> Data {
        var data = Data(buffer)
        buffer.removeAll()
        while let more = try receive() {
            data.append(contentsOf: more)
        }
        return data
    }

    /// Whether the server closed the connection (end of stream, or reset) without sending more.
    package func serverClosed() -> Bool {
        guard buffer.isEmpty else { return false }
        do {
            return try receive() == nil
        } catch {
            return true
        }
    }

    private func readLine() throws -> String {
        while true {
            if let index = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                var line = buffer[..<index]
                if line.last == UInt8(ascii: "\r") { line = line.dropLast() }
                let text = String(decoding: line, as: UTF8.self)
                buffer.removeFirst(index + 1)
                return text
            }
            guard let more = try receive() else { throw Failure(description: "connection closed mid-line") }
            buffer.append(contentsOf: more)
        }
    }

    private func readBytes(_ count: Int) throws -> Data {
        while buffer.count < count {
            guard let more = try receive() else { throw Failure(description: "connection closed mid-body") }
            buffer.append(contentsOf: more)
        }
        let data = Data(buffer[..<count])
        buffer.removeFirst(count)
        return data
    }

    /// The next bytes, or `nil` at end of stream.
    private func receive() throws -> [UInt8]? {
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = recv(descriptor, &chunk, chunk.count, 0)
            if count > 0 { return Array(chunk[..<count]) }
            if count == 0 { return nil }
            if errno == EINTR { continue }
            throw Failure(description: "recv() failed: errno \(errno)")
        }
    }
}
