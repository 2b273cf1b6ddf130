import HTTPCore
import XCTest

@testable import HTTPCoreURLSession

/// Each transition of the streamed task's state machine on its own, without URLSession.
final class StreamedTaskStateMachineTests: XCTestCase {
    private let writer = HTTPBody.makeStream().writer

    /// A machine past its head, streaming; heads are plain numbers here.
    private func streaming(maximumBytes: Int64? = nil) -> StreamedTaskStateMachine<Int> {
        var machine = StreamedTaskStateMachine<Int>(maximumBytes: maximumBytes)
        guard case .resumeTask = machine.start(1), case .deliver(1) = machine.receiveHead(writer: writer) else {
            XCTFail("not streaming")
            return machine
        }
        return machine
    }

    func testACancelWhileWaitingForTheHeadFailsItAndCancelsTheTask() {
        var machine = StreamedTaskStateMachine<Int>(maximumBytes: nil)
        _ = machine.start(1)
        guard case .failHeadAndCancelTask(1) = machine.cancel() else { return XCTFail("fail head 1") }
        guard case .cancelTask = machine.receiveHead(writer: writer) else { return XCTFail("a head after the cancel cancels again") }
        guard case .none = machine.complete() else { return XCTFail("already ended") }
    }

    func testAStartAfterACancelFailsTheHeadAtOnce() {
        var machine = StreamedTaskStateMachine<Int>(maximumBytes: nil)
        guard case .none = machine.cancel() else { return XCTFail("a cancel before the start has nothing to do") }
        guard case .failHead(2, let error) = machine.start(2) else { return XCTFail("fail head 2") }
        XCTAssertEqual(error as? HTTPError, .cancelled)
    }

    func testAFailureBeforeTheHeadFailsTheHead() {
        var machine = StreamedTaskStateMachine<Int>(maximumBytes: nil)
        _ = machine.start(3)
        guard case .failHead(3) = machine.complete() else { return XCTFail("fail head 3") }
    }

    func testDataPastTheCapFailsTheBodyOnce() {
        var machine = streaming(maximumBytes: 10)
        guard case .yield = machine.receiveData(count: 10) else { return XCTFail("10 bytes fit") }
        _ = machine.yielded(.more)
        guard case .failBodyAndCancelTask(_, let received) = machine.receiveData(count: 1) else { return XCTFail("over the cap") }
        XCTAssertEqual(received, 11)
        guard case .cancelTask = machine.receiveData(count: 5) else { return XCTFail("a late chunk cancels again") }
        guard case .none = machine.receiveData(count: 5) else { return XCTFail("not at every chunk") }
        guard case .cancelTask = machine.receiveData(count: 1 << 20) else { return XCTFail("but at every MiB") }
    }

    func testAFullBufferPausesUntilDrained() {
        var machine = streaming()
        _ = machine.receiveData(count: 100)
        XCTAssertTrue(machine.yielded(.full), "pause")
        XCTAssertTrue(machine.drained(), "resume")
        XCTAssertFalse(machine.drained(), "resumed once")
    }

    func testADrainDuringTheHandOverMeansNoPause() {
        var machine = streaming()
        _ = machine.receiveData(count: 100)
        XCTAssertFalse(machine.drained(), "nothing paused yet")
        XCTAssertFalse(machine.yielded(.full), "already drained: no pause")
        XCTAssertFalse(machine.drained())
    }

    func testAReaderStopEndsTheBodyAndCancelsTheTaskOnce() {
        var machine = streaming()
        XCTAssertTrue(machine.readerStopped())
        XCTAssertFalse(machine.readerStopped())
        guard case .none = machine.complete() else { return XCTFail("the body already ended") }
    }

    func testCompletionFinishesTheBody() {
        var machine = streaming()
        guard case .finishBody = machine.complete() else { return XCTFail("finish the body") }
        guard case .none = machine.complete() else { return XCTFail("once") }
    }
}
