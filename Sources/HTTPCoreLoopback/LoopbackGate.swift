/// A one-way barrier a streaming route waits at until the test opens it: the way to hold a
/// response in the middle, with no timing.
///
/// Made by ``LoopbackHTTPServer/makeGate()`` and waited at with
/// ``LoopbackResponseWriter/wait(for:)``. Once opened it stays open; `stop()` ends every wait at
/// it. For example, a route sends a first server-sent event and waits at a gate; a client that
/// reads that event before opening the gate has proved it sees events while the server is still
/// sending.
///
/// ```swift
/// let gate = server.makeGate()
/// server.route("GET", "/events", streaming: { _, writer in
///     try writer.writeHead(framing: .chunked)
///     try writer.write("data: first\n\n")
///     try writer.wait(for: gate)
///     try writer.write("data: second\n\n")
/// })
/// // ... read the first event, then:
/// gate.open()
/// ```
public final class LoopbackGate: @unchecked Sendable, Hashable {
    private let lifecycle: LoopbackServerLifecycle
    /// Guarded by `lifecycle`'s lock (through its `signal` and `wait`), so that opening wakes
    /// the waiting connection threads together with `stop()`.
    private var opened = false

    init(lifecycle: LoopbackServerLifecycle) {
        self.lifecycle = lifecycle
    }

    /// Opens the gate: every route waiting at it goes on, and later waits return at once.
    public func open() {
        lifecycle.signal { opened = true }
    }

    /// Blocks the calling (connection) thread until the gate opens: `false` if the server stopped first.
    package func wait() -> Bool {
        lifecycle.wait { opened }
    }

    /// Whether two gates are the same gate.
    public static func == (lhs: LoopbackGate, rhs: LoopbackGate) -> Bool { lhs === rhs }

    /// Hashes the gate's identity.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(ObjectIdentifier(self))
    }
}
