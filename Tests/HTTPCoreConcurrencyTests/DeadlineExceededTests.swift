import HTTPCoreConcurrency
import XCTest

/// How a `withDeadline` call ended.
private enum Outcome: Sendable, Equatable {
    case value(Int)
    case deadlineExceeded
    case cancelled
    case other(String)
}

final class DeadlineExceededTests: XCTestCase {
    struct OperationFailed: Error {}

    @TaskLocal static var callerLabel: String?

    func testReturnsTheOperationsValueWhenItFinishesFirstAndLeavesNoDeadlinePending() async throws {
        let pendingBefore = DeadlineTimer.shared.pendingCount
        let value = try await withDeadline(seconds: 60) { 42 }
        XCTAssertEqual(value, 42)
        XCTAssertEqual(DeadlineTimer.shared.pendingCount, pendingBefore)
    }

    func testTheDeadlineIsPendingWhileTheOperationRunsAndRemovedWhenItFinishes() async throws {
        let pendingBefore = DeadlineTimer.shared.pendingCount
        let started = AsyncCondition(false)
        let release = AsyncCondition(false)
        let call = Task {
            try await withDeadline(seconds: 60) {
                started.update { $0 = true }
                _ = try await release.wait(timeout: 60) { $0 }
                return 7
            }
        }
        _ = try await started.wait(timeout: 60) { $0 }
        XCTAssertEqual(DeadlineTimer.shared.pendingCount, pendingBefore + 1)
        release.update { $0 = true }
        let value = try await call.value
        XCTAssertEqual(value, 7)
        XCTAssertEqual(DeadlineTimer.shared.pendingCount, pendingBefore)
    }

    func testThrowsAtTheDeadlineEvenWhenTheOperationIgnoresCancellationAndCancelsIt() async throws {
        let pendingBefore = DeadlineTimer.shared.pendingCount
        let release = AsyncCondition(false)
        let operationSawCancellation = AsyncCondition<Bool?>(nil)
        let callEnded = AsyncCondition<Outcome?>(nil)
        Task {
            let ended = await outcome {
                try await withDeadline(seconds: 0.05) {
                    // An unstructured task's value ignores the waiter's cancellation.
                    _ = await Task { try? await release.wait(timeout: 60) { $0 } }.value
                    operationSawCancellation.update { $0 = Task.isCancelled }
                    return 1
                }
            }
            callEnded.update { $0 = ended }
        }
        // Fails after a minute, instead of hanging, if the call waits for the operation.
        let ended = try await callEnded.wait(timeout: 60) { $0 != nil }
        XCTAssertEqual(ended, .deadlineExceeded)
        XCTAssertNil(operationSawCancellation.state, "the call returned before the operation ended")
        XCTAssertEqual(DeadlineTimer.shared.pendingCount, pendingBefore)

        release.update { $0 = true }
        let sawCancellation = try await operationSawCancellation.wait(timeout: 60) { $0 != nil }
        XCTAssertEqual(sawCancellation, true)
    }

    func testCancellingTheCallerCancelsTheOperationAndThrowsCancellationError() async throws {
        let pendingBefore = DeadlineTimer.shared.pendingCount
        let started = AsyncCondition(false)
        let operationSawCancellation = AsyncCondition<Bool?>(nil)
        let call = Task {
            await outcome {
                try await withDeadline(seconds: 60) {
                    started.update { $0 = true }
                    let never = AsyncCondition(false)
                    do {
                        _ = try await never.wait(timeout: 60) { $0 }
                    } catch {
                        operationSawCancellation.update { $0 = Task.isCancelled }
                        throw error
                    }
                    return 1
                }
            }
        }
        _ = try await started.wait(timeout: 60) { $0 }
        call.cancel()
        let ended = await call.value
        XCTAssertEqual(ended, .cancelled)
        let sawCancellation = try await operationSawCancellation.wait(timeout: 60) { $0 != nil }
        XCTAssertEqual(sawCancellation, true)
        XCTAssertEqual(DeadlineTimer.shared.pendingCount, pendingBefore)
    }

    func testACallerCancelledBeforeTheCallThrowsCancellationErrorWithoutRunningTheOperation() async throws {
        let pendingBefore = DeadlineTimer.shared.pendingCount
        let ran = AsyncCondition(false)
        let call = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return await outcome {
                try await withDeadline(seconds: 60) {
                    ran.update { $0 = true }
                    return 1
                }
            }
        }
        let ended = await call.value
        XCTAssertEqual(ended, .cancelled)
        XCTAssertFalse(ran.state)
        XCTAssertEqual(DeadlineTimer.shared.pendingCount, pendingBefore)
    }

    func testAnErrorOfTheOperationPassesThrough() async throws {
        let pendingBefore = DeadlineTimer.shared.pendingCount
        do {
            _ = try await withDeadline(seconds: 60) { () async throws -> Int in throw OperationFailed() }
            XCTFail("expected OperationFailed")
        } catch {
            XCTAssertTrue(error is OperationFailed, "\(error)")
        }
        XCTAssertEqual(DeadlineTimer.shared.pendingCount, pendingBefore)
    }

    func testTheOperationSeesTheCallersTaskLocalValues() async throws {
        let label = try await Self.$callerLabel.withValue("caller") {
            try await withDeadline(seconds: 60) { Self.callerLabel }
        }
        XCTAssertEqual(label, "caller")
    }

    func testTheOperationRunsAtTheCallersPriority() async throws {
        let priority = try await Task(priority: .high) {
            try await withDeadline(seconds: 60) { Task.currentPriority }
        }.value
        XCTAssertEqual(priority, .high)
    }
}

/// How `call` ended.
private func outcome(_ call: @Sendable () async throws -> Int) async -> Outcome {
    do {
        return .value(try await call())
    } catch is DeadlineExceeded {
        return .deadlineExceeded
    } catch is CancellationError {
        return .cancelled
    } catch {
        return .other("\(error)")
    }
}
