import Foundation
import XCTest

@testable import HTTPCore
@testable import HTTPCoreObservation

/// A transport's message never carries the request URL's query, userinfo or fragment, in any
/// spelling a message can give them.
final class TransportMessageScrubberTests: XCTestCase {
    private let url = URL(string: "https://ada:p%40ss%20word@api.example.com/a?token=S3CR%2F3T+x&%74ag=Q9ZRAW&page=2#access_token=FR4GTOKEN&state=1")!

    func testEverySpellingOfTheQueryUserinfoAndFragmentIsRemoved() {
        let scrubber = TransportMessageScrubber(url: url)
        let cases: [(String, String)] = [
            ("the query as sent", "refused: token=S3CR%2F3T+x&%74ag=Q9ZRAW&page=2"),
            ("the query decoded", "refused: token=S3CR/3T+x&tag=Q9ZRAW&page=2"),
            ("the query decoded as a form", "refused: token=S3CR/3T x&tag=Q9ZRAW&page=2"),
            ("the query decoded, quoted in JSON with its slash escaped", #"refused: {"query":"token=S3CR\/3T+x&tag=Q9ZRAW&page=2"}"#),
            ("one value decoded, quoted in JSON with its slash escaped", #"refused: {"token":"S3CR\/3T+x"}"#),
            ("plus written as %20", "refused: token=S3CR%2F3T%20x&%74ag=Q9ZRAW&page=2"),
            ("one value decoded as a form", "bad token 'S3CR/3T x'"),
            ("one value as sent", "bad token S3CR%2F3T+x"),
            ("one value with lowercase escapes", "bad token s3cr%2f3t+x"),
            ("one value re-encoded whole", "bad token S3CR%2F3T%20x"),
            ("a value whose name was encoded", "bad tag Q9ZRAW"),
            ("the password decoded", "auth failed for p@ss word"),
            ("the password as sent", "auth failed for p%40ss%20word"),
            ("the fragment decoded", "fragment access_token=FR4GTOKEN&state=1"),
            ("a fragment value alone", "bad FR4GTOKEN"),
        ]
        for (spelling, message) in cases {
            let scrubbed = scrubber.scrubbed(message)
            for secret in ["S3CR", "s3cr", "Q9ZRAW", "p@ss", "p%40ss", "FR4GTOKEN"] {
                XCTAssertFalse(scrubbed.contains(secret), "\(spelling): \(scrubbed)")
            }
            XCTAssertTrue(scrubbed.contains(Redactor.mask), "\(spelling): \(scrubbed)")
        }
    }

    func testTheRestOfTheMessageAndShortValuesOutsideTheQueryAreKept() {
        let scrubber = TransportMessageScrubber(url: url)
        XCTAssertEqual(scrubber.scrubbed("connection refused by api.example.com:443 after 2 tries"),
                       "connection refused by api.example.com:443 after 2 tries", "`page=2`'s value is too short to hunt alone")
        XCTAssertEqual(scrubber.scrubbed("refused: token=S3CR/3T x&tag=Q9ZRAW&page=2 (try 2)"), "refused: \(Redactor.mask) (try 2)")
        XCTAssertEqual(TransportMessageScrubber(url: URL(string: "https://api.example.com/a")!).secrets, [])
    }

    func testMessagesAreCutToTheMaximumWithAMarker() {
        let scrubbed = TransportMessageScrubber(url: url).scrubbed(String(repeating: "é", count: HTTPError.maximumMessageBytes))
        XCTAssertEqual(scrubbed, String(repeating: "é", count: HTTPError.maximumMessageBytes / 2) + "\u{2026}")
    }
}
