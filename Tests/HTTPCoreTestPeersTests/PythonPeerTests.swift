import XCTest
import HTTPCoreTestPeers

final class PythonPeerTests: XCTestCase {
    func testTheFirstLineAndItsLastNumberAreRead() throws {
        let peer = try PythonPeer(arguments: ["-c", "import time; print('listening on 127.0.0.1 port 4242'); time.sleep(60)"])
        defer { peer.stop() }
        XCTAssertEqual(peer.firstLine, "listening on 127.0.0.1 port 4242")
        XCTAssertEqual(peer.lastInteger, 4242)
    }

    func testAProgramThatExitsWithoutALineIsAStartError() {
        XCTAssertThrowsError(try PythonPeer(arguments: ["-c", "import sys; sys.exit(3)"])) { error in
            XCTAssertTrue("\(error)".contains("exited without a line"), "\(error)")
        }
    }
}
