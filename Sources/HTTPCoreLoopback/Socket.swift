#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// A TCP socket file descriptor and the few POSIX calls the loopback server makes on it.
///
/// A value type around the raw descriptor: closing it is explicit, and the server makes sure
/// only the thread that owns a connection closes it, so a descriptor is never reused while
/// another thread still shuts it down.
struct Socket: Sendable, Hashable {
    let descriptor: Int32

    /// Opens a listening socket on 127.0.0.1 with `SO_REUSEADDR`, non-blocking for `accept`.
    static func makeListener(port: UInt16) throws(LoopbackHTTPServer.Error) -> (socket: Socket, port: UInt16) {
        #if canImport(Darwin)
        let descriptor = socket(AF_INET, SOCK_STREAM, 0)
        #else
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #endif
        guard descriptor >= 0 else { throw .socketFailed(errno: errno) }
        let listener = Socket(descriptor: descriptor)
        listener.setOption(SO_REUSEADDR, to: 1)

        let bound = withLoopbackAddress(port: port) { bind(descriptor, $0, $1) }
        guard bound == 0 else {
            let code = errno
            listener.close()
            throw .bindFailed(port: port, errno: code)
        }
        // A deep backlog, so hundreds of clients connecting at once are queued, not refused.
        guard listen(descriptor, 1024) == 0 else {
            let code = errno
            listener.close()
            throw .listenFailed(errno: code)
        }
        let flags = fcntl(descriptor, F_GETFL, 0)
        _ = fcntl(descriptor, F_SETFL, flags | O_NONBLOCK)

        var boundAddress = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &boundAddress) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                getsockname(descriptor, $0, &length)
            }
        }
        guard named == 0 else {
            let code = errno
            listener.close()
            throw .listenFailed(errno: code)
        }
        return (listener, UInt16(bigEndian: boundAddress.sin_port))
    }

    /// Accepts one pending connection, configured for the server; `nil` when none is ready.
    func accept() -> Socket? {
        #if canImport(Darwin)
        let accepted = Darwin.accept(descriptor, nil, nil)
        #elseif canImport(Musl)
        let accepted = Musl.accept(descriptor, nil, nil)
        #else
        let accepted = Glibc.accept(descriptor, nil, nil)
        #endif
        guard accepted >= 0 else { return nil }
        let connection = Socket(descriptor: accepted)
        // BSD sockets inherit O_NONBLOCK from the listener; connection threads want blocking I/O.
        let flags = fcntl(accepted, F_GETFL, 0)
        _ = fcntl(accepted, F_SETFL, flags & ~O_NONBLOCK)
        #if canImport(Darwin)
        connection.setOption(SO_NOSIGPIPE, to: 1)
        #endif
        // Head and body go out in separate writes; Nagle plus delayed ACKs would stall each
        // keep-alive exchange by tens of milliseconds.
        var noDelay: Int32 = 1
        _ = setsockopt(accepted, Int32(IPPROTO_TCP), TCP_NODELAY, &noDelay, socklen_t(MemoryLayout<Int32>.size))
        return connection
    }

    /// Reads available bytes into `buffer`: the count read, 0 at end of stream, -1 on error.
    func receive(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        while true {
            let count = recv(descriptor, buffer.baseAddress, buffer.count, 0)
            if count < 0 && errno == EINTR { continue }
            return count
        }
    }

    /// Writes every byte, looping over partial writes; `false` when the peer is gone.
    ///
    /// Never raises `SIGPIPE`: `MSG_NOSIGNAL` on Linux, `SO_NOSIGPIPE` (set in `accept`) on Darwin.
    @discardableResult
    func sendAll(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard var pointer = bytes.baseAddress else { return true }
        var remaining = bytes.count
        while remaining > 0 {
            #if canImport(Darwin)
            let written = send(descriptor, pointer, remaining, 0)
            #else
            let written = send(descriptor, pointer, remaining, Int32(MSG_NOSIGNAL))
            #endif
            if written < 0 {
                if errno == EINTR { continue }
                return false
            }
            pointer += written
            remaining -= written
        }
        return true
    }

    /// Writes every byte of `bytes`; `false` when the peer is gone.
    @discardableResult
    func sendAll(_ bytes: some ContiguousBytes) -> Bool {
        bytes.withUnsafeBytes { sendAll($0) }
    }

    /// Waits until the socket is readable (data, end of stream or error), up to `milliseconds`.
    func waitReadable(milliseconds: Int32) -> Bool {
        var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        while true {
            let ready = poll(&entry, 1, milliseconds)
            if ready < 0 && errno == EINTR { continue }
            return ready > 0
        }
    }

    /// Ends both directions, waking any thread blocked in `recv` on this socket.
    func shutdownBoth() {
        _ = shutdown(descriptor, Int32(SHUT_RDWR))
    }

    /// Ends the sending direction: the peer reads end of stream after what was sent.
    func shutdownWrite() {
        _ = shutdown(descriptor, Int32(SHUT_WR))
    }

    /// Arranges for the next `close` to reset the connection instead of closing it cleanly.
    func setResetOnClose() {
        var option = linger(l_onoff: 1, l_linger: 0)
        _ = setsockopt(descriptor, SOL_SOCKET, SO_LINGER, &option, socklen_t(MemoryLayout<linger>.size))
    }

    /// Releases the descriptor.
    func close() {
        #if canImport(Darwin)
        _ = Darwin.close(descriptor)
        #elseif canImport(Musl)
        _ = Musl.close(descriptor)
        #else
        _ = Glibc.close(descriptor)
        #endif
    }

    private func setOption(_ option: Int32, to value: Int32) {
        var value = value
        _ = setsockopt(descriptor, SOL_SOCKET, option, &value, socklen_t(MemoryLayout<Int32>.size))
    }
}

/// Calls `body` with 127.0.0.1:`port` as a socket address, for `bind` and `connect`.
package func withLoopbackAddress<Result>(port: UInt16, _ body: (UnsafePointer<sockaddr>, socklen_t) -> Result) -> Result {
    var address = sockaddr_in()
    #if canImport(Darwin)
    address.sin_len = UInt8(MemoryLayout<sockaddr_in>.size)
    #endif
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = in_port_t(port).bigEndian
    address.sin_addr = in_addr(s_addr: in_addr_t(0x7F00_0001).bigEndian)
    return withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
}
