import HTTPCoreConcurrency
import XCTest

final class DeadlineTimerTests: XCTestCase {
    func testALaterDeadlineStillExpiresWhenTheEarlierOneTheTimerWasSetForWasRemoved() async throws {
        let pendingBefore = DeadlineTimer.shared.pendingCount
        // Sets the timer for 50 ms from now, then removes its deadline at once.
        let quick = try await withDeadline(seconds: 0.05) { 1 }
        XCTAssertEqual(quick, 1)

        let release = AsyncCondition(false)
        let ended = try await Self.endingOf(seconds: 0.1, operationHeldBy: release)
        XCTAssertEqual(ended, "deadline exceeded")
        XCTAssertEqual(DeadlineTimer.shared.pendingCount, pendingBefore)
        release.update { $0 = true }
    }

    func testAnEarlierDeadlineExpiresWhileALaterOneIsPending() async throws {
        let pendingBefore = DeadlineTimer.shared.pendingCount
        let started = AsyncCondition(false)
        let releaseLater = AsyncCondition(false)
        let later = Task {
            try await withDeadline(seconds: 3600) {
                started.update { $0 = true }
                _ = try await releaseLater.wait(timeout: 60) { $0 }
                return 2
            }
        }
        _ = try await started.wait(timeout: 60) { $0 }

        let release = AsyncCondition(false)
        let ended = try await Self.endingOf(seconds: 0.05, operationHeldBy: release)
        XCTAssertEqual(ended, "deadline exceeded")
        XCTAssertEqual(DeadlineTimer.shared.pendingCount, pendingBefore + 1)
        release.update { $0 = true }

        releaseLater.update { $0 = true }
        let value = try await later.value
        XCTAssertEqual(value, 2)
        XCTAssertEqual(DeadlineTimer.shared.pendingCount, pendingBefore)
    }

    /// How a `withDeadline(seconds:)` call ends whose operation ignores cancellation until
    /// `release` holds; fails after a minute instead of hanging.
    private static func endingOf(seconds: TimeInterval, operationHeldBy release: AsyncCondition<Bool>) async throws -> String {
        let ending = AsyncCondition<String?>(nil)
        Task {
            let ended: String
            do {
                _ = try await withDeadline(seconds: seconds) {
                    // An unstructured task's value ignores the waiter's cancellation.
                    await Task { try? await release.wait(timeout: 60) { $0 } }.value
                }
                ended = "value"
            } catch is DeadlineExceeded {
                ended = "deadline exceeded"
            } catch {
                ended = "\(error)"
            }
            ending.update { $0 = ended }
        }
        return try await ending.wait(timeout: 60) { $0 != nil } ?? "none"
    }
}
