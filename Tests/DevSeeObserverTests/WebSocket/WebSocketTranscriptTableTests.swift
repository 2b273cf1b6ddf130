import Foundation
import HTTPCore
import HTTPCoreObservation
import HTTPCoreTesting
import XCTest

@testable import DevSeeObserver

final class WebSocketTranscriptTableTests: XCTestCase {
    func testBeyondTheLimitTheConnectionOpenedFirstIsForgotten() throws {
        var table = WebSocketTranscriptTable(limit: 2, maxMessages: 4, maxBytes: 1024)
        let ids = (0..<3).map { _ in HTTPRequest(url: URL(string: "wss://a.example/live")!).id }
        for id in ids { table.open(id) }

        XCTAssertEqual(table.count, 2)
        XCTAssertNil(table.close(ids[0]))
        XCTAssertNotNil(table.close(ids[1]))
        XCTAssertNotNil(table.close(ids[2]))
        XCTAssertEqual(table.count, 0)
    }
}
