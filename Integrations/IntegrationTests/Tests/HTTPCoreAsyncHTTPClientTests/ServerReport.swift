import Foundation

/// A value a loopback route (on a server thread) or a `receive` closure hands to the test,
/// awaited with a bound that only catches a hang.
final class ServerReport<Value: Sendable>: Sendable {
    /// Waiting for a report took longer than the bound.
    struct Timeout: Error, CustomStringConvertible {
        let description: String
    }

    private let stream: AsyncStream<Value>
    private let continuation: AsyncStream<Value>.Continuation

    init() {
        (stream, continuation) = AsyncStream.makeStream(of: Value.self)
    }

    /// Hands `value` over; only the first report is awaited.
    func report(_ value: Value) {
        continuation.yield(value)
    }

    /// The first value reported; throws ``Timeout`` after `timeout` seconds.
    func value(timeout: TimeInterval = 60, _ what: String) async throws -> Value {
        try await withThrowingTaskGroup(of: Value?.self) { group in
            group.addTask { [stream] in
                for await value in stream { return value }
                return nil
            }
            group.addTask {
                try await Task.sleep(nanoseconds: UInt64(timeout * 1e9))
                throw Timeout(description: "not within \(timeout) s: \(what)")
            }
            defer { group.cancelAll() }
            guard let value = try await group.next() ?? nil else { throw Timeout(description: "no report: \(what)") }
            return value
        }
    }
}
