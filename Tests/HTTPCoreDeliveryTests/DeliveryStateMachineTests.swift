import HTTPCore
import XCTest

@testable import HTTPCoreDelivery

/// The delivery rules, input by input, with time as an argument: what each input does to
/// the state and which actions it asks for.
final class DeliveryStateMachineTests: XCTestCase {
    // MARK: Sending and batching

    func testAnItemIsSentAtOnceWithSingleBatching() {
        var machine = makeMachine()
        let actions = machine.enqueue(7, byteCost: 10, now: 0)
        XCTAssertEqual(actions.sentItems, [[7]])
        XCTAssertNil(actions.sends[0].batch, "built by the caller on the first send")
        XCTAssertEqual(machine.statistics.pending, 1)
    }

    func testAFillingBatchWaitsForItsTimerAndLeavesWhenItFires() {
        var machine = makeMachine { $0.batching = .init(maximumCount: 3, maximumDelay: 2) }
        let first = machine.enqueue(1, byteCost: 10, now: 0)
        XCTAssertEqual(first.sentItems, [])
        XCTAssertEqual(first.timers, [.init(id: 1, delay: seconds(2))])
        XCTAssertEqual(machine.enqueue(2, byteCost: 10, now: seconds(1)).timers, [], "one batch timer at a time")
        XCTAssertEqual(machine.timerFired(1, now: seconds(2)).sentItems, [[1, 2]])
    }

    func testAFullBatchLeavesWithoutWaitingForItsTimer() {
        var machine = makeMachine { $0.batching = .init(maximumCount: 2, maximumDelay: 3600) }
        _ = machine.enqueue(1, byteCost: 10, now: 0)
        XCTAssertEqual(machine.enqueue(2, byteCost: 10, now: 0).sentItems, [[1, 2]])
    }

    func testConcurrentSendsAreBoundedAndTheNextLeavesWhenOneEnds() {
        var machine = makeMachine { $0.maximumConcurrentSends = 2 }
        let enqueued = (1...3).map { machine.enqueue($0, byteCost: 10, now: 0) }
        XCTAssertEqual(enqueued.flatMap(\.sentItems), [[1], [2]])
        XCTAssertEqual(enqueued.compactMap(\.build).count, 0, "nothing is built ahead unless asked for")
        let delivered = machine.sendCompleted(flight(1), outcome: .delivered, batch: [1], now: 0)
        XCTAssertEqual(delivered.sentItems, [[3]])
        XCTAssertNil(delivered.sends[0].batch, "built by the caller when it is sent")
        XCTAssertEqual(machine.statistics.delivered, 1)
    }

    func testAFlushSendsAFillingBatchAtOnceAndEndsWhenItIsDelivered() {
        var machine = makeMachine { $0.batching = .init(maximumCount: 10, maximumDelay: 3600) }
        _ = machine.enqueue(1, byteCost: 10, now: 0)
        let (waiter, flush) = machine.flush(now: 0)
        XCTAssertEqual(flush.sentItems, [[1]])
        XCTAssertEqual(flush.resumedFlushes, [])
        let delivered = machine.sendCompleted(flush.sends[0].flight, outcome: .delivered, batch: [1], now: 0)
        XCTAssertEqual(delivered.resumedFlushes, [waiter])
    }

    func testItemsTheDestinationLeftOutAreSkippedAndTheRestDelivered() {
        var machine = makeMachine { $0.batching = .init(maximumCount: 3, maximumDelay: 3600) }
        let sent = (1...3).map { machine.enqueue($0, byteCost: 10, now: 0) }.flatMap(\.sends)
        XCTAssertEqual(sent.map { $0.items.count }, [3])
        _ = machine.sendCompleted(sent[0].flight, outcome: .skipped(count: 2), batch: [1, 2, 3], now: 0)
        let further = (4...6).map { machine.enqueue($0, byteCost: 10, now: 0) }.flatMap(\.sends)
        _ = machine.sendCompleted(further[0].flight, outcome: .skipped(count: 9), batch: [4, 5, 6], now: 0)
        let statistics = machine.statistics
        XCTAssertEqual([statistics.accepted, statistics.delivered, statistics.skipped, statistics.pending], [6, 1, 5, 0], "a count past the batch skips the batch")
        XCTAssertTrue(statistics.isBalanced)
    }

    func testAStaleTimerIsIgnored() {
        var machine = makeMachine()
        _ = machine.enqueue(1, byteCost: 10, now: 0)
        let actions = machine.timerFired(999, now: 0)
        XCTAssertTrue(actions.isEmpty)
    }

    // MARK: Building ahead

    func testTheOrderedLaneBuildsTheNextBatchDuringASendAndItsRetriesKeepIt() {
        var machine = makeMachine(buildingAhead: true) { $0.maximumConcurrentSends = 1 }
        XCTAssertEqual(machine.enqueue(1, byteCost: 10, now: 0).sentItems, [[1]])
        let second = machine.enqueue(2, byteCost: 10, now: 0)
        XCTAssertEqual(second.sentItems, [])
        XCTAssertEqual(second.builtItems, [2])
        XCTAssertEqual(machine.lookahead, .building(id: build(2), first: 2, last: 2, count: 1))
        XCTAssertTrue(machine.batchBuilt(build(2), batch: [2], now: 0).isEmpty, "the slot is still taken")
        XCTAssertEqual(machine.lookahead, .waiting(first: 2))
        XCTAssertEqual([machine.statistics.pending, machine.buffer.count], [2, 1], "still waiting, counted once")
        let delivered = machine.sendCompleted(flight(1), outcome: .delivered, batch: [1], now: 0)
        XCTAssertEqual(delivered.sentItems, [[2]])
        XCTAssertEqual(delivered.sends[0].batch as? [Int], [2], "sent as it was built ahead")
        let answer = machine.sendCompleted(flight(3), outcome: .retryable(status: 503, retryAfter: nil), batch: [2], now: 0)
        let retry = machine.timerFired(answer.timers[0].id, now: 0)
        XCTAssertEqual(retry.sends.map { $0.batch as? [Int] }, [[2]], "the batch built ahead is kept for its retries")
    }

    func testOnlyACompleteBatchIsBuiltAheadSoBatchesAreNoSmallerThanWithout() {
        var machine = makeMachine(buildingAhead: true) {
            $0.maximumConcurrentSends = 1
            $0.batching = .init(maximumCount: 10, maximumBytes: 25, maximumDelay: 3600)
        }
        let enqueued = (1...4).map { machine.enqueue($0, byteCost: 10, now: 0) }
        XCTAssertEqual(enqueued.flatMap(\.sentItems), [[1, 2]], "3 made the batch due by bytes, and did not fit")
        XCTAssertEqual(enqueued.compactMap(\.build).count, 0, "3 and 4 make 20 bytes: an item of 5 could still join them")
        XCTAssertEqual(machine.enqueue(5, byteCost: 10, now: 0).builtItems, [3, 4], "5 does not fit: the batch is complete")
    }

    func testASendThatEndsWhileTheNextBatchIsBuiltWaitsForItInsteadOfBuildingItAgain() {
        var machine = makeMachine(buildingAhead: true) { $0.maximumConcurrentSends = 1 }
        _ = machine.enqueue(1, byteCost: 10, now: 0)
        _ = machine.enqueue(2, byteCost: 10, now: 0)
        let delivered = machine.sendCompleted(flight(1), outcome: .delivered, batch: [1], now: 0)
        XCTAssertTrue(delivered.isEmpty, "no send, no second build")
        let built = machine.batchBuilt(build(2), batch: [2], now: 0)
        XCTAssertEqual(built.sentItems, [[2]])
        XCTAssertEqual(built.sends[0].batch as? [Int], [2])
    }

    func testABatchWhoseItemsWereDroppedWhileItWasBuiltIsDiscardedAndCountsNothing() {
        var machine = makeMachine(buildingAhead: true) {
            $0.maximumConcurrentSends = 1
            $0.bufferLimit = 2
        }
        _ = machine.enqueue(1, byteCost: 10, now: 0)
        _ = machine.enqueue(2, byteCost: 10, now: 0)
        _ = machine.enqueue(3, byteCost: 10, now: 0)
        XCTAssertEqual(machine.enqueue(4, byteCost: 10, now: 0).builtItems, nil, "one build at a time")
        XCTAssertEqual(machine.statistics.dropped, 1, "2, the oldest waiting, was dropped while it was built")
        let discarded = machine.batchBuilt(build(2), batch: [2], now: 0)
        XCTAssertEqual(discarded.builtItems, [3], "the batch of 2 is discarded, and the next is built")
        XCTAssertNil(machine.buffer.first?.prepared)
        _ = machine.batchBuilt(build(3), batch: [3], now: 0)
        let first = machine.sendCompleted(flight(1), outcome: .delivered, batch: [1], now: 0)
        XCTAssertEqual(first.sentItems, [[3]])
        XCTAssertEqual(first.sends[0].batch as? [Int], [3])
        XCTAssertEqual(first.builtItems, [4])
        _ = machine.batchBuilt(build(5), batch: [4], now: 0)
        let second = machine.sendCompleted(flight(4), outcome: .delivered, batch: [3], now: 0)
        XCTAssertEqual(second.sends.map { $0.batch as? [Int] }, [[4]])
        _ = machine.sendCompleted(flight(6), outcome: .delivered, batch: [4], now: 0)
        let statistics = machine.statistics
        XCTAssertEqual([statistics.accepted, statistics.delivered, statistics.dropped, statistics.pending], [4, 3, 1, 0])
        XCTAssertTrue(statistics.isBalanced)
    }

    func testItemsThatOutliveTheMaximumAgeWhileTheirBatchIsBuiltExpireOnceAndTheBatchIsDiscarded() {
        var machine = makeMachine(buildingAhead: true) {
            $0.maximumConcurrentSends = 1
            $0.maximumAge = 10
        }
        _ = machine.enqueue(1, byteCost: 10, now: 0)
        _ = machine.enqueue(2, byteCost: 10, now: 0)
        let delivered = machine.sendCompleted(flight(1), outcome: .delivered, batch: [1], now: seconds(11))
        XCTAssertEqual(delivered.diagnostics, [.expired(count: 1)])
        XCTAssertEqual(delivered.sentItems, [])
        XCTAssertTrue(machine.batchBuilt(build(2), batch: [2], now: seconds(11)).isEmpty)
        XCTAssertEqual(machine.lookahead, .idle)
        let statistics = machine.statistics
        XCTAssertEqual([statistics.delivered, statistics.expired, statistics.pending], [1, 1, 0])
        XCTAssertTrue(statistics.isBalanced)
    }

    func testOneBatchBuiltAheadWaitsAtATime() {
        var machine = makeMachine(buildingAhead: true) { $0.maximumConcurrentSends = 1 }
        _ = machine.enqueue(1, byteCost: 10, now: 0)
        let answer = machine.sendCompleted(flight(1), outcome: .retryable(status: 503, retryAfter: nil), batch: [1], now: 0)
        XCTAssertEqual(machine.enqueue(2, byteCost: 10, now: 0).builtItems, [2], "a batch waiting for its retry takes the slot")
        _ = machine.batchBuilt(build(3), batch: [2], now: 0)
        XCTAssertEqual(machine.enqueue(3, byteCost: 10, now: 0).builtItems, nil, "2's batch waits: 3 is built once it has left")
        _ = machine.timerFired(answer.timers[0].id, now: 0)
        let delivered = machine.sendCompleted(flight(1), outcome: .delivered, batch: [1], now: 0)
        XCTAssertEqual(delivered.sentItems, [[2]])
        XCTAssertEqual(delivered.builtItems, [3])
    }

    func testDuringAnOutageNothingIsBuiltAheadAndABatchBuiltBeforeItLeavesAsBuilt() {
        var machine = makeMachine(buildingAhead: true) { $0.maximumConcurrentSends = 1 }
        _ = machine.enqueue(1, byteCost: 10, now: 0)
        _ = machine.enqueue(2, byteCost: 10, now: 0)
        _ = machine.batchBuilt(build(2), batch: [2], now: 0)
        let outage = machine.sendCompleted(flight(1), outcome: .unreachable(reason: "refused"), batch: [1], now: 0)
        XCTAssertEqual(machine.enqueue(3, byteCost: 10, now: 0).builtItems, nil, "nothing is built while the destination does not answer")
        let probe = machine.timerFired(outage.timers[0].id, now: 0)
        XCTAssertEqual(probe.sends.map { $0.batch as? [Int] }, [[1]], "the batch put back goes first")
        let recovered = machine.sendCompleted(probe.sends[0].flight, outcome: .delivered, batch: [1], now: 0)
        XCTAssertEqual(recovered.sentItems, [[2]])
        XCTAssertEqual(recovered.sends[0].batch as? [Int], [2], "built before the outage, not built again")
        XCTAssertEqual(recovered.builtItems, [3])
    }

    func testShutdownWaitsForTheBatchBeingBuiltAndCountsItsItemsOnceAsFailed() {
        var machine = makeMachine(buildingAhead: true) { $0.maximumConcurrentSends = 1 }
        _ = machine.enqueue(1, byteCost: 10, now: 0)
        _ = machine.enqueue(2, byteCost: 10, now: 0)
        _ = machine.sendCompleted(flight(1), outcome: .unreachable(reason: "refused"), batch: [1], now: 0)
        let stopping = machine.beginShutdown(now: 0)
        XCTAssertEqual(stopping.sentItems, [[1]], "the last probe")
        let (waiter, _) = machine.flush(now: 0)
        let givenUp = machine.sendCompleted(stopping.sends[0].flight, outcome: .unreachable(reason: "refused"), batch: [1], now: 0)
        XCTAssertEqual(givenUp.diagnostics, [.failed(count: 2, reason: "unreachable during shutdown (refused)")])
        XCTAssertEqual(givenUp.resumedFlushes, [], "a batch is still being built")
        let built = machine.batchBuilt(build(2), batch: [2], now: 0)
        XCTAssertEqual(built.resumedFlushes, [waiter])
        XCTAssertEqual(built.sentItems, [])
        _ = machine.finishShutdown()
        let statistics = machine.statistics
        XCTAssertEqual([statistics.failed, statistics.pending], [2, 0])
        XCTAssertTrue(statistics.isBalanced)
    }

    func testAStaleBuildIsIgnored() {
        var machine = makeMachine(buildingAhead: true)
        _ = machine.enqueue(1, byteCost: 10, now: 0)
        XCTAssertTrue(machine.batchBuilt(999, batch: [1], now: 0).isEmpty)
        XCTAssertEqual(machine.lookahead, .idle)
    }

    // MARK: Outages

    func testAnOutageOfAHundredProbesLosesNothingAndCountsNoRetry() {
        var machine = makeMachine { $0.maximumRetries = 3 }
        _ = machine.enqueue(1, byteCost: 10, now: 0)
        var actions = machine.sendCompleted(flight(1), outcome: .unreachable(reason: "refused"), batch: [1], now: 0)
        XCTAssertEqual(actions.diagnostics, [.unreachable(reason: "refused")])
        XCTAssertEqual(machine.connectivity, .unreachable(failures: 1, probe: .scheduled(timer: 2)))
        var delays: [TimeInterval] = []
        for _ in 1...100 {
            let timer = actions.timers[0]
            delays.append(Double(timer.delay) / 1e9)
            let probe = machine.timerFired(timer.id, now: 0)
            XCTAssertEqual(probe.sentItems, [[1]])
            XCTAssertEqual(probe.sends[0].batch as? [Int], [1], "the batch built once is sent again")
            actions = machine.sendCompleted(probe.sends[0].flight, outcome: .unreachable(reason: "refused"), batch: [1], now: 0)
            XCTAssertEqual(actions.diagnostics, [], "one report per outage")
        }
        XCTAssertEqual(Array(delays.prefix(5)), [1, 2, 4, 8, 8], "the backoff grows to its maximum")
        let probe = machine.timerFired(actions.timers[0].id, now: 0)
        let recovered = machine.sendCompleted(probe.sends[0].flight, outcome: .delivered, batch: [1], now: 0)
        XCTAssertEqual(recovered.diagnostics, [.reachableAgain])
        XCTAssertEqual(machine.connectivity, .reachable)
        let statistics = machine.statistics
        XCTAssertEqual([statistics.delivered, statistics.failed, statistics.retried, statistics.probes], [1, 0, 0, 101])
        XCTAssertTrue(statistics.isBalanced)
    }

    func testItemsEnqueuedDuringAnOutageWaitThenLeaveInOrder() {
        var machine = makeMachine { $0.maximumConcurrentSends = 2 }
        _ = machine.enqueue(1, byteCost: 10, now: 0)
        let outage = machine.sendCompleted(flight(1), outcome: .unreachable(reason: "refused"), batch: [1], now: 0)
        XCTAssertEqual((2...4).flatMap { machine.enqueue($0, byteCost: 10, now: 0).sentItems }, [], "nothing leaves but the probe")
        let probe = machine.timerFired(outage.timers[0].id, now: 0)
        XCTAssertEqual(probe.sentItems, [[1]])
        let recovered = machine.sendCompleted(probe.sends[0].flight, outcome: .delivered, batch: [1], now: 0)
        XCTAssertEqual(recovered.sentItems, [[2], [3]])
    }

    func testASendStartedBeforeTheOutageFindsItWithoutDisturbingTheProbe() {
        var machine = makeMachine { $0.maximumConcurrentSends = 2 }
        _ = machine.enqueue(1, byteCost: 10, now: 0)
        _ = machine.enqueue(2, byteCost: 10, now: 0)
        let first = machine.sendCompleted(flight(1), outcome: .unreachable(reason: "refused"), batch: [1], now: 0)
        let second = machine.sendCompleted(flight(2), outcome: .unreachable(reason: "reset"), batch: [2], now: 0)
        XCTAssertEqual(first.timers.count, 1)
        XCTAssertTrue(second.isEmpty, "no second report, no second probe")
        XCTAssertEqual(machine.buffer.count, 2)
        XCTAssertEqual(machine.timerFired(first.timers[0].id, now: 0).sentItems, [[1]], "the oldest batch probes")
    }

    func testAnErrorAnswerToAProbeEndsTheOutageAndCountsAsARetry() {
        var machine = makeMachine()
        _ = machine.enqueue(1, byteCost: 10, now: 0)
        let outage = machine.sendCompleted(flight(1), outcome: .unreachable(reason: "refused"), batch: [1], now: 0)
        let probe = machine.timerFired(outage.timers[0].id, now: 0)
        let answer = machine.sendCompleted(probe.sends[0].flight, outcome: .retryable(status: 503, retryAfter: nil), batch: [1], now: 0)
        XCTAssertEqual(answer.diagnostics, [.reachableAgain])
        XCTAssertEqual(answer.timers.map(\.delay), [seconds(1)], "the first retry's backoff")
        XCTAssertEqual(machine.statistics.retried, 1)
    }

    func testAFlushDuringAnOutageReturnsAtOnceAndKeepsTheItems() {
        var machine = makeMachine()
        _ = machine.enqueue(1, byteCost: 10, now: 0)
        _ = machine.sendCompleted(flight(1), outcome: .unreachable(reason: "refused"), batch: [1], now: 0)
        let (waiter, actions) = machine.flush(now: 0)
        XCTAssertEqual(actions.resumedFlushes, [waiter])
        XCTAssertEqual([machine.statistics.pending, machine.statistics.failed], [1, 0])
    }

    func testAFlushDuringAProbeWaitsForItsAnswer() {
        var machine = makeMachine()
        _ = machine.enqueue(1, byteCost: 10, now: 0)
        let outage = machine.sendCompleted(flight(1), outcome: .unreachable(reason: "refused"), batch: [1], now: 0)
        let probe = machine.timerFired(outage.timers[0].id, now: 0)
        let (waiter, flush) = machine.flush(now: 0)
        XCTAssertEqual(flush.resumedFlushes, [])
        let delivered = machine.sendCompleted(probe.sends[0].flight, outcome: .delivered, batch: [1], now: 0)
        XCTAssertEqual(delivered.resumedFlushes, [waiter])
        XCTAssertEqual(machine.statistics.delivered, 1)
    }

    func testAFlushWaitingWhenTheOutageStartsReturns() {
        var machine = makeMachine()
        _ = machine.enqueue(1, byteCost: 10, now: 0)
        let (waiter, flush) = machine.flush(now: 0)
        XCTAssertEqual(flush.resumedFlushes, [])
        let outage = machine.sendCompleted(flight(1), outcome: .unreachable(reason: "refused"), batch: [1], now: 0)
        XCTAssertEqual(outage.resumedFlushes, [waiter])
    }

    func testItemsOlderThanTheMaximumAgeExpireAtTheNextProbeAndTheRestIsProbed() {
        var machine = makeMachine { $0.maximumAge = 10 }
        _ = machine.enqueue(1, byteCost: 10, now: 0)
        let outage = machine.sendCompleted(flight(1), outcome: .unreachable(reason: "refused"), batch: [1], now: 0)
        _ = machine.enqueue(2, byteCost: 10, now: seconds(9))
        let probe = machine.timerFired(outage.timers[0].id, now: seconds(12))
        XCTAssertEqual(probe.diagnostics, [.expired(count: 1)])
        XCTAssertEqual(probe.sentItems, [[2]])
        XCTAssertEqual([machine.statistics.expired, machine.statistics.pending], [1, 1])
    }

    func testAProbeWithNothingLeftWaitsForTheNextItemAndSendsItAtOnce() {
        var machine = makeMachine { $0.maximumAge = 10 }
        _ = machine.enqueue(1, byteCost: 10, now: 0)
        let outage = machine.sendCompleted(flight(1), outcome: .unreachable(reason: "refused"), batch: [1], now: 0)
        XCTAssertEqual(machine.timerFired(outage.timers[0].id, now: seconds(20)).sentItems, [])
        XCTAssertEqual(machine.connectivity, .unreachable(failures: 1, probe: .idle))
        XCTAssertEqual(machine.enqueue(2, byteCost: 10, now: seconds(21)).sentItems, [[2]])
        XCTAssertEqual(machine.statistics.probes, 1)
    }

    func testAFullBufferDuringAnOutageDropsTheOldestFirstAndReportsIt() {
        var machine = makeMachine { $0.bufferLimit = 2 }
        _ = machine.enqueue(1, byteCost: 10, now: 0)
        _ = machine.sendCompleted(flight(1), outcome: .unreachable(reason: "refused"), batch: [1], now: 0)
        _ = machine.enqueue(2, byteCost: 10, now: 0)
        let overflow = machine.enqueue(3, byteCost: 10, now: 0)
        XCTAssertEqual(overflow.diagnostics, [.overflowStarted(countLimit: 2, byteLimit: 16 * 1024 * 1024)])
        XCTAssertEqual(machine.buffer.first?.element as? Int, 2, "the batch put back was the oldest")
        XCTAssertEqual([machine.statistics.dropped, machine.statistics.pending], [1, 2])
        XCTAssertEqual(overflow.evicted.first?.element as? Int, 1, "handed back, for the queue to release outside its lock")
        XCTAssertEqual(overflow.evicted.count, 1)
    }

    func testRetryNowProbesAtOnceAndStartsTheBackoffAfresh() {
        var machine = makeMachine()
        _ = machine.enqueue(1, byteCost: 10, now: 0)
        var actions = machine.sendCompleted(flight(1), outcome: .unreachable(reason: "refused"), batch: [1], now: 0)
        for _ in 1...4 {
            let probe = machine.timerFired(actions.timers[0].id, now: 0)
            actions = machine.sendCompleted(probe.sends[0].flight, outcome: .unreachable(reason: "refused"), batch: [1], now: 0)
        }
        XCTAssertEqual(actions.timers.map(\.delay), [seconds(8)])
        let retry = machine.retryNow(now: 0)
        XCTAssertEqual(retry.cancelledTimers, [actions.timers[0].id])
        XCTAssertEqual(retry.sentItems, [[1]])
        let next = machine.sendCompleted(retry.sends[0].flight, outcome: .unreachable(reason: "refused"), batch: [1], now: 0)
        XCTAssertEqual(next.timers.map(\.delay), [seconds(1)])
    }

    func testAProbeUnderWayDuringRetryNowIsFollowedAtOnce() {
        var machine = makeMachine()
        _ = machine.enqueue(1, byteCost: 10, now: 0)
        let outage = machine.sendCompleted(flight(1), outcome: .unreachable(reason: "refused"), batch: [1], now: 0)
        let probe = machine.timerFired(outage.timers[0].id, now: 0)
        XCTAssertTrue(machine.retryNow(now: 0).sends.isEmpty, "one probe at a time")
        let failed = machine.sendCompleted(probe.sends[0].flight, outcome: .unreachable(reason: "refused"), batch: [1], now: 0)
        XCTAssertEqual(failed.timers.map(\.delay), [0])
    }

    // MARK: Answers that are errors

    func testRetryableAnswersAreRetriedUpToTheMaximumThenFailAndAreReportedOncePerStatus() {
        var machine = makeMachine { $0.maximumRetries = 2 }
        _ = machine.enqueue(1, byteCost: 10, now: 0)
        var actions = machine.sendCompleted(flight(1), outcome: .retryable(status: 503, retryAfter: nil), batch: [1], now: 0)
        for delay in [1.0, 2.0] {
            XCTAssertEqual(actions.timers.map(\.delay), [seconds(delay)])
            let retry = machine.timerFired(actions.timers[0].id, now: 0)
            XCTAssertEqual(retry.sentItems, [[1]])
            actions = machine.sendCompleted(flight(1), outcome: .retryable(status: 503, retryAfter: nil), batch: [1], now: 0)
        }
        XCTAssertEqual(actions.diagnostics, [.failed(count: 1, reason: "status 503 after 2 retries")])
        let next = machine.enqueue(2, byteCost: 10, now: 0)
        _ = machine.sendCompleted(next.sends[0].flight, outcome: .retryable(status: 503, retryAfter: nil), batch: [2], now: 0)
        let statistics = machine.statistics
        XCTAssertEqual([statistics.failed, statistics.retried, statistics.pending], [1, 3, 1])
    }

    func testRetryAfterIsHonouredUpToTheBackoffMaximum() {
        var machine = makeMachine()
        _ = machine.enqueue(1, byteCost: 10, now: 0)
        let soon = machine.sendCompleted(flight(1), outcome: .retryable(status: 429, retryAfter: 3), batch: [1], now: 0)
        XCTAssertEqual(soon.timers.map(\.delay), [seconds(3)])
        let retry = machine.timerFired(soon.timers[0].id, now: 0)
        let late = machine.sendCompleted(retry.sends[0].flight, outcome: .retryable(status: 429, retryAfter: 3600), batch: [1], now: 0)
        XCTAssertEqual(late.timers.map(\.delay), [seconds(8)])
    }

    func testARetryRebuildsTheBatchWithoutItemsThatOutlivedTheMaximumAge() {
        var machine = makeMachine {
            $0.maximumAge = 10
            $0.batching = .init(maximumCount: 2, maximumDelay: 3600)
        }
        _ = machine.enqueue(1, byteCost: 10, now: 0)
        let full = machine.enqueue(2, byteCost: 10, now: seconds(5))
        let answer = machine.sendCompleted(full.sends[0].flight, outcome: .retryable(status: 503, retryAfter: nil), batch: [1, 2], now: seconds(5))
        let retry = machine.timerFired(answer.timers[0].id, now: seconds(12))
        XCTAssertEqual(retry.sentItems, [[2]])
        XCTAssertNil(retry.sends[0].batch, "rebuilt from the items left")
        XCTAssertEqual(retry.diagnostics, [.expired(count: 1)])
    }

    func testNoAnswerWhileTheDestinationAnsweredAnotherSendIsAnErrorOfTheBatchNotAnOutage() {
        var machine = makeMachine { $0.maximumConcurrentSends = 2; $0.maximumRetries = 1 }
        let first = machine.enqueue(1, byteCost: 10, now: 0)
        let second = machine.enqueue(2, byteCost: 10, now: 0)
        _ = machine.sendCompleted(first.sends[0].flight, outcome: .delivered, batch: [1], now: 0)
        let timedOut = machine.sendCompleted(second.sends[0].flight, outcome: .unreachable(reason: "timed out"), batch: [2], now: 0)
        XCTAssertEqual(machine.connectivity, .reachable)
        XCTAssertEqual(timedOut.timers.map(\.delay), [seconds(1)], "a retry's backoff, not a probe")
        let retry = machine.timerFired(timedOut.timers[0].id, now: 0)
        _ = machine.enqueue(3, byteCost: 10, now: 0)
        _ = machine.sendCompleted(flight(4), outcome: .delivered, batch: [3], now: 0)
        let failed = machine.sendCompleted(retry.sends[0].flight, outcome: .unreachable(reason: "timed out"), batch: [2], now: 0)
        XCTAssertEqual(failed.diagnostics, [.failed(count: 1, reason: "no answer (timed out) after 1 retry")])
        let statistics = machine.statistics
        XCTAssertEqual([statistics.delivered, statistics.failed, statistics.retried, statistics.probes], [2, 1, 1, 0])
    }

    func testAFailureOrExpiryIsReportedAgainOnceABatchWasDeliveredSince() {
        var machine = makeMachine { $0.maximumRetries = 0; $0.maximumConcurrentSends = 1 }
        let first = machine.enqueue(1, byteCost: 10, now: 0)
        let failed = machine.sendCompleted(first.sends[0].flight, outcome: .retryable(status: 503, retryAfter: nil), batch: [1], now: 0)
        XCTAssertEqual(failed.diagnostics, [.failed(count: 1, reason: "status 503 after 0 retries")])
        let second = machine.enqueue(2, byteCost: 10, now: 0)
        XCTAssertEqual(machine.sendCompleted(second.sends[0].flight, outcome: .retryable(status: 503, retryAfter: nil), batch: [2], now: 0).diagnostics, [])
        let third = machine.enqueue(3, byteCost: 10, now: 0)
        _ = machine.sendCompleted(third.sends[0].flight, outcome: .delivered, batch: [3], now: 0)
        let fourth = machine.enqueue(4, byteCost: 10, now: 0)
        let again = machine.sendCompleted(fourth.sends[0].flight, outcome: .retryable(status: 503, retryAfter: nil), batch: [4], now: 0)
        XCTAssertEqual(again.diagnostics, [.failed(count: 1, reason: "status 503 after 0 retries")])
    }

    func testAnAnswerThatIsNotHTTPIsRetriedLikeAServerError() {
        var machine = makeMachine { $0.maximumRetries = 0 }
        let first = machine.enqueue(1, byteCost: 10, now: 0)
        let failed = machine.sendCompleted(first.sends[0].flight, outcome: .retryable(status: 0, retryAfter: nil), batch: [1], now: 0)
        XCTAssertEqual(failed.diagnostics, [.failed(count: 1, reason: "an answer that is not HTTP after 0 retries")])
    }

    func testARefusalIsCountedAndReportedOncePerStatus() {
        var machine = makeMachine { $0.maximumConcurrentSends = 1 }
        _ = machine.enqueue(1, byteCost: 10, now: 0)
        _ = machine.enqueue(2, byteCost: 10, now: 0)
        let first = machine.sendCompleted(flight(1), outcome: .rejected(status: 400, reason: "bad"), batch: [1], now: 0)
        XCTAssertEqual(first.diagnostics, [.rejected(status: 400, reason: "bad")])
        XCTAssertEqual(first.sentItems, [[2]])
        let second = machine.sendCompleted(flight(2), outcome: .rejected(status: 400, reason: "bad"), batch: [2], now: 0)
        XCTAssertEqual(second.diagnostics, [])
        XCTAssertEqual(machine.statistics.rejected, 2)
    }

    // MARK: Shutdown

    func testShutdownDuringAnOutageProbesOnceMoreThenGivesUpAndReportsIt() {
        var machine = makeMachine()
        _ = machine.enqueue(1, byteCost: 10, now: 0)
        let outage = machine.sendCompleted(flight(1), outcome: .unreachable(reason: "refused"), batch: [1], now: 0)
        _ = machine.enqueue(2, byteCost: 10, now: 0)
        let stopping = machine.beginShutdown(now: 0)
        XCTAssertEqual(stopping.cancelledTimers, [outage.timers[0].id])
        XCTAssertEqual(stopping.sentItems, [[1]])
        let (waiter, flush) = machine.flush(now: 0)
        XCTAssertEqual(flush.resumedFlushes, [], "stopping waits for the last probe")
        let givenUp = machine.sendCompleted(stopping.sends[0].flight, outcome: .unreachable(reason: "refused"), batch: [1], now: 0)
        XCTAssertEqual(givenUp.diagnostics, [.failed(count: 2, reason: "unreachable during shutdown (refused)")])
        XCTAssertEqual(givenUp.resumedFlushes, [waiter])
        _ = machine.finishShutdown()
        _ = machine.enqueue(3, byteCost: 10, now: 0)
        let statistics = machine.statistics
        XCTAssertEqual([statistics.failed, statistics.dropped, statistics.pending], [2, 1, 0])
        XCTAssertTrue(statistics.isBalanced)
    }

    func testShutdownSendsAWaitingRetryAtOnceAndGivesUpAfterItsAnswer() {
        var machine = makeMachine()
        _ = machine.enqueue(1, byteCost: 10, now: 0)
        let answer = machine.sendCompleted(flight(1), outcome: .retryable(status: 503, retryAfter: nil), batch: [1], now: 0)
        let stopping = machine.beginShutdown(now: 0)
        XCTAssertEqual(stopping.cancelledTimers, answer.timers.map(\.id))
        XCTAssertEqual(stopping.sentItems, [[1]])
        let last = machine.sendCompleted(flight(1), outcome: .retryable(status: 503, retryAfter: nil), batch: [1], now: 0)
        XCTAssertEqual(last.timers, [], "no backoff while stopping")
        XCTAssertEqual(last.diagnostics, [.failed(count: 1, reason: "status 503 during shutdown")])
        XCTAssertEqual(machine.statistics.failed, 1)
    }

    func testShutdownReportsEveryBatchItGivesUpAfterAnErrorAnswer() {
        var machine = makeMachine { $0.maximumConcurrentSends = 2; $0.maximumRetries = 0 }
        let earlier = machine.enqueue(1, byteCost: 10, now: 0)
        _ = machine.sendCompleted(earlier.sends[0].flight, outcome: .retryable(status: 503, retryAfter: nil), batch: [1], now: 0)
        let second = machine.enqueue(2, byteCost: 10, now: 0)
        let third = machine.enqueue(3, byteCost: 10, now: 0)
        _ = machine.beginShutdown(now: 0)
        let one = machine.sendCompleted(second.sends[0].flight, outcome: .retryable(status: 503, retryAfter: nil), batch: [2], now: 0)
        let other = machine.sendCompleted(third.sends[0].flight, outcome: .retryable(status: 503, retryAfter: nil), batch: [3], now: 0)
        XCTAssertEqual(one.diagnostics + other.diagnostics, Array(repeating: .failed(count: 1, reason: "status 503 during shutdown"), count: 2))
    }

    func testShutdownSendsAFillingBatchAtOnce() {
        var machine = makeMachine { $0.batching = .init(maximumCount: 10, maximumDelay: 3600) }
        let filling = machine.enqueue(1, byteCost: 10, now: 0)
        let stopping = machine.beginShutdown(now: 0)
        XCTAssertEqual(stopping.cancelledTimers, filling.timers.map(\.id))
        XCTAssertEqual(stopping.sentItems, [[1]])
    }

    // MARK: Items after shutdown

    func testAnItemAfterShutdownIsReportedAtOnceAndThoseThatFollowTogetherWhenTheirSecondEnds() {
        var machine = makeMachine()
        _ = machine.beginShutdown(now: 0)
        _ = machine.finishShutdown()
        let first = machine.enqueue(1, byteCost: 10, now: 0)
        XCTAssertEqual(first.diagnostics, [.droppedAfterShutdown(count: 1, total: 1)])
        XCTAssertEqual(first.timers.map(\.delay), [seconds(1)])
        XCTAssertEqual(first.sentItems, [])
        for item in 2...4 {
            XCTAssertTrue(machine.enqueue(item, byteCost: 10, now: 0).isEmpty, "counted, reported when the window ends")
        }
        let windowEnd = machine.timerFired(first.timers[0].id, now: seconds(1))
        XCTAssertEqual(windowEnd.diagnostics, [.droppedAfterShutdown(count: 3, total: 4)])
        XCTAssertEqual(windowEnd.timers.map(\.delay), [seconds(2)], "the next window is twice as long")
        let statistics = machine.statistics
        XCTAssertEqual([statistics.accepted, statistics.dropped, statistics.droppedAfterShutdown, statistics.pending], [4, 4, 4, 0])
        XCTAssertTrue(statistics.isBalanced)
    }

    func testAWindowWithoutLateItemsEndsTheSeriesAndTheNextLateItemIsReportedAtOnce() {
        var machine = makeMachine()
        _ = machine.finishShutdown()
        let first = machine.enqueue(1, byteCost: 10, now: 0)
        let quiet = machine.timerFired(first.timers[0].id, now: seconds(1))
        XCTAssertTrue(quiet.isEmpty, "nothing to report, no further window")
        let again = machine.enqueue(2, byteCost: 10, now: seconds(5))
        XCTAssertEqual(again.diagnostics, [.droppedAfterShutdown(count: 1, total: 2)])
        XCTAssertEqual(again.timers.map(\.delay), [seconds(1)])
    }

    func testAFloodOfLateItemsIsReportedOncePerWindowAndTheWindowsGrowToAMinute() {
        var machine = makeMachine()
        _ = machine.finishShutdown()
        var actions = machine.enqueue(0, byteCost: 10, now: 0)
        var reports = actions.diagnostics
        var windows: [UInt64] = []
        for _ in 1...9 {
            let window = actions.timers[0]
            windows.append(window.delay)
            for item in 1...100 {
                XCTAssertTrue(machine.enqueue(item, byteCost: 10, now: 0).isEmpty)
            }
            actions = machine.timerFired(window.id, now: 0)
            reports += actions.diagnostics
        }
        XCTAssertEqual(windows, [1, 2, 4, 8, 16, 32, 60, 60, 60].map(seconds))
        let perWindow = (1...9).map { DeliveryDiagnostic.droppedAfterShutdown(count: 100, total: 1 + 100 * $0) }
        XCTAssertEqual(reports, [.droppedAfterShutdown(count: 1, total: 1)] + perWindow, "901 items in 10 reports")
        XCTAssertEqual(machine.statistics.droppedAfterShutdown, 901)
    }

    func testAFlushAfterShutdownReportsTheLateItemsNotYetReportedAtOnce() {
        var machine = makeMachine()
        _ = machine.finishShutdown()
        let first = machine.enqueue(1, byteCost: 10, now: 0)
        _ = machine.enqueue(2, byteCost: 10, now: 0)
        _ = machine.enqueue(3, byteCost: 10, now: 0)
        let (waiter, flush) = machine.flush(now: 0)
        XCTAssertEqual(flush.diagnostics, [.droppedAfterShutdown(count: 2, total: 3)])
        XCTAssertEqual(flush.resumedFlushes, [waiter])
        let windowEnd = machine.timerFired(first.timers[0].id, now: seconds(1))
        XCTAssertTrue(windowEnd.isEmpty, "already reported: the window ends the series")
    }

    func testItemsEnqueuedWhileStoppingAreSentNotReportedAsLate() {
        var machine = makeMachine()
        _ = machine.beginShutdown(now: 0)
        let stopping = machine.enqueue(1, byteCost: 10, now: 0)
        XCTAssertEqual(stopping.sentItems, [[1]])
        XCTAssertEqual(stopping.diagnostics, [])
    }

    // MARK: Helpers

    private func makeMachine(
        buildingAhead: Bool = false, _ configure: (inout DeliveryConfiguration) -> Void = { _ in }
    ) -> DeliveryStateMachine {
        var configuration = DeliveryConfiguration()
        configuration.backoff = Backoff(initial: 1, maximum: 8, jitter: .none)
        configuration.buildsBatchesAhead = buildingAhead
        configure(&configuration)
        return DeliveryStateMachine(configuration: configuration)
    }

    /// Ids count up from 1 across flights, builds, timers and flush waiters, in the order the
    /// machine hands them out.
    private func flight(_ id: UInt64) -> UInt64 { id }

    private func build(_ id: UInt64) -> UInt64 { id }

    private func seconds(_ value: TimeInterval) -> UInt64 { UInt64(value * 1_000_000_000) }
}

extension DeliveryStateMachine.Actions {
    /// The items of each send, as the numbers the tests enqueue.
    fileprivate var sentItems: [[Int]] { sends.map { $0.items.map { $0.element as! Int } } }

    /// The items of the batch to build ahead, as numbers.
    fileprivate var builtItems: [Int]? { build?.items.map { $0.element as! Int } }

    fileprivate var isEmpty: Bool {
        sends.isEmpty && build == nil && timers.isEmpty && cancelledTimers.isEmpty && diagnostics.isEmpty && resumedFlushes.isEmpty
    }
}
