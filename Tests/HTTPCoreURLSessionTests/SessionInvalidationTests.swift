import XCTest

@testable import HTTPCoreURLSession

/// Each transition of the invalidation state machine on its own, without URLSession.
final class SessionInvalidationTests: XCTestCase {
    func testAnInvalidationWithNoTaskBeingCreatedIsPassedOnAtOnceAndRefusesTasks() {
        var invalidation = SessionInvalidation()
        XCTAssertFalse(invalidation.isInvalidated)
        XCTAssertEqual(invalidation.requestInvalidation(.finishTasks), .finishTasks)
        XCTAssertTrue(invalidation.isInvalidated)
        XCTAssertFalse(invalidation.beginCreating())
    }

    func testAnInvalidationDuringACreationWaitsForItAndTheStrongerRequestWins() {
        var invalidation = SessionInvalidation()
        XCTAssertTrue(invalidation.beginCreating())
        XCTAssertTrue(invalidation.beginCreating())
        XCTAssertNil(invalidation.requestInvalidation(.finishTasks))
        XCTAssertNil(invalidation.requestInvalidation(.cancelTasks))
        XCTAssertNil(invalidation.requestInvalidation(.finishTasks))
        XCTAssertTrue(invalidation.isInvalidated)
        XCTAssertFalse(invalidation.beginCreating())
        XCTAssertNil(invalidation.endCreating())
        XCTAssertEqual(invalidation.endCreating(), .cancelTasks)
        XCTAssertNil(invalidation.endCreating())
    }

    func testTheDelegateBeingToldRefusesTasksWithNothingToPassOn() {
        var invalidation = SessionInvalidation()
        XCTAssertTrue(invalidation.beginCreating())
        invalidation.sessionBecameInvalid()
        XCTAssertNil(invalidation.endCreating())
        XCTAssertFalse(invalidation.beginCreating())
        XCTAssertEqual(invalidation.requestInvalidation(.finishTasks), .finishTasks)
    }
}
