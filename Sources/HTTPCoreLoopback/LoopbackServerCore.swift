#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import HTTPCore
import HTTPCoreConcurrency

/// The shared state and accept loop behind a ``LoopbackHTTPServer``.
///
/// Threads retain the core, never the server, so releasing the last reference to the server
/// runs its `deinit`, which stops the core.
final class LoopbackServerCore: Sendable {
    typealias Handler = @Sendable (LoopbackRequest) -> LoopbackResponse
    typealias StreamingHandler = @Sendable (LoopbackRequest, LoopbackResponseWriter) throws -> Void

    struct RouteKey: Hashable {
        var method: String?
        var path: String
    }

    /// What a route keeps of the request and how it answers.
    struct Route {
        enum Answer {
            case response(Handler)
            case streaming(StreamingHandler)
        }

        var requestBody: LoopbackRequest.BodyRecording
        var answer: Answer
    }

    struct Routes {
        var table: [RouteKey: Route] = [:]
        /// Answers requests no route matches; internal, for servers built on this one.
        var fallback: Handler?
    }

    struct Record {
        var requests: [LoopbackRequest] = []
        var acceptedConnections = 0
    }

    let port: UInt16
    let lifecycle = LoopbackServerLifecycle()
    let routes = Locked(Routes())
    let record = Locked(Record())
    private let listener: Socket
    /// Written once by `stop()` to wake the accept loop out of `poll`.
    private let wakeRead: Int32
    private let wakeWrite: Int32

    init(port requestedPort: UInt16) throws(LoopbackHTTPServer.Error) {
        var pipeEnds: [Int32] = [0, 0]
        guard pipe(&pipeEnds) == 0 else { throw .socketFailed(errno: errno) }
        let listening: (socket: Socket, port: UInt16)
        do {
            listening = try Socket.makeListener(port: requestedPort)
        } catch {
            _ = close(pipeEnds[0])
            _ = close(pipeEnds[1])
            throw error
        }
        listener = listening.socket
        port = listening.port
        wakeRead = pipeEnds[0]
        wakeWrite = pipeEnds[1]
    }

    deinit {
        _ = close(wakeRead)
        _ = close(wakeWrite)
    }

    /// Starts the accept loop on its own thread.
    func start() {
        guard lifecycle.acceptThreadWillStart() else {
            listener.close()
            return
        }
        let thread = Thread { [self] in
            acceptLoop()
            lifecycle.threadDidEnd()
        }
        thread.name = "LoopbackHTTPServer :\(port) accept"
        thread.start()
    }

    /// Stops accepting, shuts every connection, and waits up to `timeout` for their threads.
    func stop(timeout: TimeInterval = 2) {
        guard lifecycle.beginStop() else { return }
        var byte: UInt8 = 1
        _ = write(wakeWrite, &byte, 1)
        lifecycle.waitForThreads(until: Date(timeIntervalSinceNow: timeout))
    }

    /// Registers `route`, replacing one for the same method and path.
    func setRoute(_ method: String?, _ path: String, _ route: Route) {
        routes.withLock { $0.table[RouteKey(method: method, path: path)] = route }
    }

    /// The route for a request: exact method, then any method, then `GET` for `HEAD`, then the fallback.
    func route(method: String, path: String) -> Route? {
        routes.withLock { routes in
            routes.table[RouteKey(method: method, path: path)]
                ?? routes.table[RouteKey(method: nil, path: path)]
                ?? (method == "HEAD" ? routes.table[RouteKey(method: "GET", path: path)] : nil)
                ?? routes.fallback.map { Route(requestBody: .whole, answer: .response($0)) }
        }
    }

    private func acceptLoop() {
        defer { listener.close() }
        while !lifecycle.isStopped {
            var entries = [
                pollfd(fd: listener.descriptor, events: Int16(POLLIN), revents: 0),
                pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0),
            ]
            let ready = poll(&entries, 2, -1)
            if ready < 0 {
                if errno == EINTR { continue }
                return
            }
            if entries[1].revents != 0 { return }
            guard entries[0].revents != 0 else { continue }
            // Drain the backlog; the listener is non-blocking, so `nil` means it is empty
            // (or a client gave up, or descriptors ran out: then pause instead of spinning).
            while let connection = listener.accept() {
                serve(connection)
            }
            if errno == EMFILE || errno == ENFILE {
                _ = lifecycle.pause(0.01)
            }
        }
    }

    private func serve(_ socket: Socket) {
        let id = record.withLock { record in
            record.acceptedConnections += 1
            return record.acceptedConnections
        }
        guard lifecycle.register(socket, id: id) else {
            socket.close()
            return
        }
        guard lifecycle.threadWillStart() else {
            lifecycle.unregister(id: id)
            socket.close()
            return
        }
        let thread = Thread { [self] in
            LoopbackConnection(core: self, socket: socket, id: id).run()
            lifecycle.threadDidEnd()
        }
        thread.name = "LoopbackHTTPServer :\(port) connection \(id)"
        thread.start()
    }
}
