@testable import HTTPCoreWebSocket
import NIOCore
import NIOWebSocket
import XCTest

final class WebSocketMessageAssemblerTests: XCTestCase {
    private func frame(_ opcode: WebSocketOpcode, _ text: String, fin: Bool) -> WebSocketFrame {
        WebSocketFrame(fin: fin, opcode: opcode, data: ByteBuffer(string: text))
    }

    func testAThousandFragmentsKeepOnlyTheFirstKeptBytesAndCountEveryByte() throws {
        var assembler = WebSocketMessageAssembler(keptBytes: 10)
        XCTAssertNil(assembler.append(frame(.text, "abcdef", fin: false)))
        for _ in 0..<998 {
            XCTAssertNil(assembler.append(frame(.continuation, String(repeating: "x", count: 1024), fin: false)))
        }
        let message = try XCTUnwrap(assembler.append(frame(.continuation, "end", fin: true)))
        XCTAssertEqual(message.opcode, .text)
        XCTAssertEqual(message.payload.count, 6 + 998 * 1024 + 3)
        XCTAssertEqual(message.payload.kept.count, 10)
        XCTAssertEqual(String(decoding: message.payload.prefix(10), as: UTF8.self), "abcdefxxxx")
        XCTAssertNil(message.payload.withContiguousStorageIfAvailable { _ in () }, "a cut payload offers no storage that would read as whole")
    }

    func testAControlFrameBetweenFragmentsIsAMessageOfItsOwn() throws {
        var assembler = WebSocketMessageAssembler(keptBytes: 100)
        XCTAssertNil(assembler.append(frame(.binary, "ab", fin: false)))
        let ping = try XCTUnwrap(assembler.append(frame(.ping, "p", fin: true)))
        XCTAssertEqual(ping.opcode, .ping)
        let message = try XCTUnwrap(assembler.append(frame(.continuation, "cd", fin: true)))
        XCTAssertEqual(message.opcode, .binary)
        XCTAssertEqual(Array(message.payload), Array("abcd".utf8))
        XCTAssertEqual(message.payload.withContiguousStorageIfAvailable { Array($0) }, Array("abcd".utf8))
    }

    func testAContinuationWithoutAFirstFrameIsNoMessage() {
        var assembler = WebSocketMessageAssembler(keptBytes: 100)
        XCTAssertNil(assembler.append(frame(.continuation, "orphan", fin: true)))
    }
}
