import HTTPCoreLoopback

extension LoopbackHTTPServer {
    /// More than the kernel buffers of a loopback connection hold, so a route writing it blocks
    /// until the client reads or closes, and fails once the client closed.
    static let moreThanSocketBuffers: Int64 = 32 << 20

    /// Routes GET `path` to a body of `head` bytes, then a wait at `gate`, then
    /// ``moreThanSocketBuffers`` more; reports to `closed` whether writing the rest failed
    /// (the client closed the connection) or not.
    func routeHeldAtGate(_ path: String, head: Int64, gate: LoopbackGate, closed: ServerReport<Bool>) {
        let rest = Self.moreThanSocketBuffers
        route("GET", path, streaming: { _, writer in
            try writer.writeHead(framing: .contentLength(head + rest))
            try writer.writePattern(byteCount: head)
            try writer.wait(for: gate)
            do {
                try writer.writePattern(byteCount: rest)
                closed.report(false)
            } catch {
                closed.report(true)
                throw error
            }
        })
    }
}
