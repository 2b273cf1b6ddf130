import Foundation
import HTTPCoreConcurrency
import XCTest

/// Shutdowns to run when the current test ends: of loggers that would otherwise go on
/// retrying the port of a receiver the test stopped, a port the system may give a later
/// test's receiver, which would then store the old test's logs.
///
/// The ``shared`` list runs itself when each test ends: its first use registers an
/// `XCTestObservation` whose `testCaseDidFinish(_:)` calls ``runAll(timeout:)``. A test
/// support helper adds its logger's shutdown and is done:
///
/// ```swift
/// TestEndShutdowns.shared.add { [logger] in await logger.shutdown() }
/// ```
///
/// Its own target, apart from the test peers, because it imports XCTest and the benchmarks
/// link the peers.
public final class TestEndShutdowns: Sendable {
    /// The list every test support helper adds to, run at the end of every test.
    public static let shared: TestEndShutdowns = {
        let shutdowns = TestEndShutdowns()
        XCTestObservationCenter.shared.addTestObserver(RunAtTestEnd(shutdowns))
        return shutdowns
    }()

    private let shutdowns = Locked<[@Sendable () async -> Void]>([])

    /// Creates an empty list, which runs only when ``runAll(timeout:)`` is called.
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

/// Runs a ``TestEndShutdowns`` list when each test ends.
final class RunAtTestEnd: NSObject, XCTestObservation, Sendable {
    private let shutdowns: TestEndShutdowns

    init(_ shutdowns: TestEndShutdowns) {
        self.shutdowns = shutdowns
    }

    func testCaseDidFinish(_ testCase: XCTestCase) {
        shutdowns.runAll()
    }
}
