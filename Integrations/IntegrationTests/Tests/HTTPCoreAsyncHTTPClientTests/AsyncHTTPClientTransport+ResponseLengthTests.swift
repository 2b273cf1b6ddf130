import HTTPCore
import NIOHTTP1
import XCTest

@testable import HTTPCoreAsyncHTTPClient

/// The response length the head declares, which the cap and the body handed to the caller
/// rely on.
final class AsyncHTTPClientTransportResponseLengthTests: XCTestCase {
    func testTheHeadsDeclaredLength() {
        let cases: [(fields: [(String, String)], method: HTTPCore.HTTPMethod, status: Int, expected: HTTPBody.Length)] = [
            ([("Content-Length", "64")], .get, 200, .known(64)),
            ([("content-length", " 64\t")], .get, 200, .known(64)),
            ([("CONTENT-LENGTH", "64")], .get, 200, .known(64)),
            // Case is folded for letters only: `\r` | 0x20 is `-`, and this is no Content-Length.
            ([("Content\rLength", "64")], .get, 200, .unknown),
            ([("Content_Length", "64")], .get, 200, .unknown),
            ([("Content-Length", "64, 64")], .get, 200, .known(64)),
            ([("Content-Length", "64"), ("Content-Length", "64")], .get, 200, .known(64)),
            ([("Content-Length", "64, 65")], .get, 200, .unknown),
            ([("Content-Length", "64"), ("Content-Length", "65")], .get, 200, .unknown),
            ([("Content-Length", "-1")], .get, 200, .unknown),
            ([("Content-Length", "6 4")], .get, 200, .unknown),
            ([("Content-Length", "")], .get, 200, .unknown),
            ([("Content-Length", "64,")], .get, 200, .unknown),
            ([("Content-Length", "9999999999999999999")], .get, 200, .unknown),
            ([("Content-Length", "64"), ("Transfer-Encoding", "chunked")], .get, 200, .unknown),
            ([("Content-Length", "64"), ("Content-Encoding", "gzip")], .get, 200, .unknown),
            ([("Content-Length", "64"), ("Content-Encoding", "Identity")], .get, 200, .known(64)),
            ([], .get, 200, .unknown),
            ([("Content-Length", "64")], .head, 200, .known(0)),
            ([("Content-Length", "64")], .get, 204, .known(0)),
            ([("Content-Length", "64")], .get, 304, .known(0)),
            ([("Content-Length", "64")], .get, 101, .known(0)),
        ]
        for item in cases {
            let headers = NIOHTTP1.HTTPHeaders(item.fields)
            let length = AsyncHTTPClientTransport.responseLength(method: item.method, status: item.status, headers: headers)
            XCTAssertEqual(length, item.expected, "\(item.fields) \(item.method) \(item.status)")
        }
    }
}
