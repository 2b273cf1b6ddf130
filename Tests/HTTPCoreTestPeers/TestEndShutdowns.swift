import Foundation
import HTTPCoreConcurrency

/// Shutdowns to run when the current test ends: of loggers that would otherwise go on
/// retrying the port of a receiver the test stopped, a port the system may give a later
/// test's receiver, which would then store the old test's logs.
///
/// A test target calls ``runAll()`` from its `XCTestObservation.testCaseDidFinish(_:)`.
public final class TestEndShutdowns: Sendable {
    /// The list every test support helper adds to.
    public static let shared = TestEndShutdowns()

    private let shutdowns = Locked<[@Sendable () async -> Void]>([])

    /// Creates an empty list.
    public init() {}

    /// Runs `shutdown` when the current test ends.
    public func add(_ shutdown: @escaping @Sendable () async -> Void) {
        shutdowns.withLock { $0.append(shutdown) }
    }

    /// Runs every shutdown added so far, in order, and empties the list; returns when they
    /// are done, or after `timeout` seconds (a minute by default) so that one that hangs
    /// cannot stop the test run. Call it from a thread outside the cooperative pool.
    public func runAll(timeout: TimeInterval = 60) {
        let due = shutdowns.withLock { shutdowns in
            defer { shutdowns = [] }
            return shutdowns
        }
        guard !due.isEmpty else { return }
        let done = DispatchSemaphore(value: 0)
        Task {
            for shutdown in due { await shutdown() }
            done.signal()
        }
        _ = done.wait(timeout: .now() + timeout)
    }
}
