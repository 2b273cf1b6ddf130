import Foundation
import HTTPCore
import HTTPCoreObservation
import HTTPCoreConcurrency
import HTTPCoreTesting
import XCTest

final class HTTPExchangeTableTests: XCTestCase {
    private let first = HTTPRequest(url: URL(string: "https://api.example.com/a")!)
    private let second = HTTPRequest(url: URL(string: "https://api.example.com/b")!)
    private let third = HTTPRequest(url: URL(string: "https://api.example.com/c")!)

    private func table(limit: Int) -> (HTTPExchangeTable<String>, DiagnosticsRecorder) {
        let diagnostics = DiagnosticsRecorder()
        return (HTTPExchangeTable<String>(limit: limit, owner: "TestObserver", diagnostics: diagnostics.report), diagnostics)
    }

    func testAValueKeptAtCreationIsTakenOnceAtTheEnd() {
        let (table, diagnostics) = table(limit: 10)
        XCTAssertTrue(table.keep("first", for: first.id))
        XCTAssertTrue(table.keep("second", for: second.id))
        XCTAssertEqual(table.count, 2)

        XCTAssertEqual(table.take(for: second.id), "second")
        XCTAssertNil(table.take(for: second.id), "taken once")
        XCTAssertNil(table.take(for: third.id), "never kept: created before the observer subscribed")
        XCTAssertEqual(table.take(for: first.id), "first")
        XCTAssertEqual(table.count, 0)
        XCTAssertEqual(table.untrackedCount, 0)
        XCTAssertEqual(diagnostics.reports, [])
    }

    func testExchangesOfOneRequestValueSentAgainAreTakenFirstInFirstOut() {
        let (table, _) = table(limit: 10)
        for value in ["one", "two", "three"] { table.keep(value, for: first.id) }

        XCTAssertEqual([table.take(for: first.id), table.take(for: first.id), table.take(for: first.id), table.take(for: first.id)], [
            "one", "two", "three", nil,
        ])
        XCTAssertEqual(table.count, 0)
    }

    func testAFullTableRefusesCountsAndReportsOnceEachTimeItFillsAndEmpties() {
        let (table, diagnostics) = table(limit: 2)
        table.keep("first", for: first.id)
        table.keep("second", for: second.id)

        XCTAssertFalse(table.keep("third", for: third.id))
        XCTAssertFalse(table.keep("third again", for: third.id))
        XCTAssertEqual(table.untrackedCount, 2)
        XCTAssertNil(table.take(for: third.id), "a refused exchange has nothing to take")
        let full = HTTPDiagnostic(
            source: "TestObserver", level: .warning,
            message: "2 exchanges in flight are kept already; exchanges created until one ends are not. "
                + "If fewer are in flight, terminal events were missed: a subscription cancelled while exchanges were in flight",
            metadata: ["limit": "2"]
        )
        XCTAssertEqual(diagnostics.reports, [full], "one warning for two refusals")

        XCTAssertEqual(table.take(for: first.id), "first")
        let room = HTTPDiagnostic(
            source: "TestObserver", level: .notice,
            message: "exchanges in flight are kept again; 2 created while 2 were kept were not",
            metadata: ["limit": "2", "untracked": "2"]
        )
        XCTAssertEqual(diagnostics.reports, [full, room])

        XCTAssertTrue(table.keep("fourth", for: third.id))
        XCTAssertFalse(table.keep("fifth", for: HTTPRequest(url: URL(string: "https://api.example.com/e")!).id))
        XCTAssertEqual(table.take(for: second.id), "second")
        XCTAssertEqual(table.untrackedCount, 3)
        let roomAgain = HTTPDiagnostic(
            source: "TestObserver", level: .notice,
            message: "exchanges in flight are kept again; 1 created while 2 were kept were not",
            metadata: ["limit": "2", "untracked": "1"]
        )
        XCTAssertEqual(diagnostics.reports, [full, room, full, roomAgain], "each filling reported anew, with its own count")
    }

    func testAValueIsLookedUpUnderTheLockMadeOutsideItAndStoredOnlyWhenThereIsRoom() {
        let (table, diagnostics) = table(limit: 1)
        let cache = Locked<[String: String]>([:])
        let calls = Locked<[String]>([])
        func keep(_ key: String, for id: HTTPRequest.ID) -> String? {
            table.keep(
                for: id,
                lookingUp: {
                    calls.withLock { $0.append("look up \(key)") }
                    return cache.withLock { $0[key] }
                },
                making: {
                    calls.withLock { $0.append("make \(key)") }
                    return "made \(key)"
                },
                storing: { made in
                    calls.withLock { $0.append("store \(made)") }
                    return cache.withLock { cache in
                        if let raced = cache[key] { return raced }
                        cache[key] = made
                        return made
                    }
                }
            )
        }

        XCTAssertEqual(keep("a", for: first.id), "made a")
        XCTAssertEqual(calls.withLock { $0 }, ["look up a", "make a", "store made a"])
        XCTAssertEqual(table.take(for: first.id), "made a")
        calls.withLock { $0 = [] }
        XCTAssertEqual(keep("a", for: first.id), "made a")
        XCTAssertEqual(calls.withLock { $0 }, ["look up a"], "found: nothing made or stored")
        calls.withLock { $0 = [] }
        XCTAssertNil(keep("b", for: second.id), "refused: the table is full")
        XCTAssertEqual(calls.withLock { $0 }, [], "nothing looked up or made for a refused exchange")
        XCTAssertEqual(table.untrackedCount, 1)
        XCTAssertEqual(diagnostics.reports.map(\.level), [.warning])
    }

    func testATableOfNoPlacesKeepsNothing() {
        let (table, diagnostics) = table(limit: -1)
        XCTAssertEqual(table.limit, 0)
        XCTAssertFalse(table.keep("first", for: first.id))
        XCTAssertNil(table.take(for: first.id))
        XCTAssertEqual(table.untrackedCount, 1)
        XCTAssertEqual(diagnostics.reports.map(\.level), [.warning])
    }

    func testConcurrentExchangesAreEachTakenOnce() async {
        let (table, diagnostics) = table(limit: 10_000)
        let requests = (0..<1_000).map { HTTPRequest(url: URL(string: "https://api.example.com/\($0)")!) }
        let taken = await withTaskGroup(of: Int.self) { group in
            for (index, request) in requests.enumerated() {
                group.addTask {
                    table.keep("\(index)", for: request.id)
                    return table.take(for: request.id) == "\(index)" ? 1 : 0
                }
            }
            return await group.reduce(0, +)
        }
        XCTAssertEqual(taken, 1_000)
        XCTAssertEqual(table.count, 0)
        XCTAssertEqual(diagnostics.reports, [])
    }

    func testAReportHandlerMayReadAndUseTheTableItReportsOn() async throws {
        let table = Locked<HTTPExchangeTable<String>?>(nil)
        let seen = Locked<[String]>([])
        let (first, second, third) = (first, second, third)
        let fourth = HTTPRequest(url: URL(string: "https://api.example.com/d")!)
        let reporting = HTTPExchangeTable<String>(limit: 1, owner: "TestObserver") { diagnostic in
            guard let table = table.withLock({ $0 }) else { return }
            seen.withLock { $0.append("\(diagnostic.level): \(table.count) kept, \(table.untrackedCount) untracked") }
            // Keeps in the report: refused while full, kept once there is room.
            let kept = table.keep("kept in the \(diagnostic.level)", for: diagnostic.level == .warning ? third.id : fourth.id)
            seen.withLock { $0.append("kept: \(kept)") }
        }
        table.withLock { $0 = reporting }
        let finished = Locked(false)
        // On a thread of its own: without the fix the reports lock the table again and this
        // thread never returns, so the wait below fails after its 60 s bound.
        Thread.detachNewThread {
            reporting.keep("first", for: first.id)
            reporting.keep("second", for: second.id)
            _ = reporting.take(for: first.id)
            finished.withLock { $0 = true }
        }
        try await waitUntil("keep and take return while their reports use the table") { finished.withLock { $0 } }

        XCTAssertEqual(seen.withLock { $0 }, [
            "warning: 1 kept, 1 untracked", "kept: false",
            "notice: 0 kept, 2 untracked", "kept: true",
        ])
        XCTAssertEqual(reporting.take(for: fourth.id), "kept in the notice")
        XCTAssertEqual(reporting.untrackedCount, 2)
    }

    func testReportsOfTablesFillingAndEmptyingOnManyThreadsAlternateAndCountEveryRefusal() async throws {
        let (table, diagnostics) = table(limit: 2)
        let threads = 4
        let rounds = 20_000
        let finished = Locked(0)
        for thread in 0..<threads {
            Thread.detachNewThread {
                let ids = (0..<3).map { HTTPRequest(url: URL(string: "https://api.example.com/\(thread)/\($0)")!).id }
                for round in 0..<rounds {
                    // Two exchanges in flight per thread at most, against a table of two: it
                    // fills and empties again and again, its reports racing.
                    let id = ids[round % ids.count]
                    table.keep("\(round)", for: id)
                    table.keep("\(round) again", for: id)
                    _ = table.take(for: id)
                    _ = table.take(for: id)
                }
                finished.withLock { $0 += 1 }
            }
        }
        try await waitUntil("every thread filled and emptied the table \(rounds) times") { finished.withLock { $0 } == threads }

        let reports = diagnostics.reports
        XCTAssertEqual(table.count, 0)
        XCTAssertGreaterThan(table.untrackedCount, 0, "the table was full at times")
        let levels = reports.map(\.level)
        let outOfOrder = levels.indices.first { levels[$0] != ($0.isMultiple(of: 2) ? .warning : .notice) }
        XCTAssertNil(outOfOrder, "a warning, then its notice, in order: \(levels.count) reports")
        XCTAssertEqual(levels.count % 2, 0, "the table has room in the end: the last report is a notice")
        let noticed = reports.compactMap { $0.metadata["untracked"].flatMap(Int.init) }.reduce(0, +)
        XCTAssertEqual(noticed, table.untrackedCount, "the notices count every refused exchange once")
    }
}
