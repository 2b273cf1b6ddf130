import Foundation
import XCTest

@testable import HTTPCoreRedaction

/// The trie of every format's prefix: which row a word reaches, and where its secret ends.
final class SecretFormatIndexTests: XCTestCase {
    private let index = SecretFormatIndex([
        KnownSecretFormat("short", prefix: "ab_", .atLeast(8), of: .alphanumeric),
        KnownSecretFormat("long", prefix: "ab_live_", .exactly(10), of: .lowerHex),
        KnownSecretFormat("bounded", prefix: "zz-", .between(4, 6), of: .upperAlphanumeric),
        KnownSecretFormat("with infix", prefix: "pi_", .atLeast(10), of: .base64URL, containing: "_secret_"),
        KnownSecretFormat("digit-led", prefix: ":AA", .exactly(5), of: .base64URL, afterDigits: 3...4),
        KnownSecretFormat("key block", prefix: "-----BEGIN ", body: .privateKeyBlock),
    ])

    private func length(_ text: String) -> Int? {
        index.secretLength(atStartOf: Array(text.utf8)[...])
    }

    func testTheLongestPrefixIsTriedFirstThenTheShorterOnesItExtends() {
        XCTAssertEqual(length("ab_live_0123456789 rest"), 18, "the long row: exactly 10 hex bytes")
        // Not hex, so not the long row; the short row reads it as `live_…`? No: `_` is not alphanumeric.
        XCTAssertNil(length("ab_live_XYZXYZXYZ9"))
        XCTAssertEqual(length("ab_Live1234567"), 14, "only the short row's prefix matches")
    }

    func testAnExactOrBoundedLengthRejectsALongerRun() {
        XCTAssertNil(length("ab_live_0123456789a"), "11 hex bytes is another word")
        XCTAssertEqual(length("zz-AB12"), 7)
        XCTAssertEqual(length("zz-AB1234"), 9)
        XCTAssertNil(length("zz-AB12345"), "7 bytes, over the bound")
        XCTAssertNil(length("zz-AB1"), "3 bytes, under it")
    }

    func testARunNeedsADigitOrACapitalAndEndsBeforeAFullStop() {
        XCTAssertNil(length("ab_abcdefghij"), "prose has neither")
        XCTAssertEqual(length("ab_abcdefgh1."), 12, "the full stop is the sentence's")
    }

    func testAnInfixMustStandInTheRun() {
        XCTAssertEqual(length("pi_3Pq7tQv4pR_secret_NGQGg8L"), 28)
        XCTAssertNil(length("pi_3Pq7tQv4pR2eZkT1b9yHc2M"))
    }

    func testADigitLedRowCountsItsDigitsBeforeThePrefix() {
        XCTAssertEqual(length("1234:AAb1c2d x"), 12)
        XCTAssertNil(length("12:AAb1c2d"), "two digits, under the row's three")
        XCTAssertNil(length("12345:AAb1c2d"), "five digits, over its four")
        XCTAssertNil(length("1234:ABb1c2d"))
    }

    func testAPrivateKeyBlockRunsToTheEndOfItsEndLineOrOfTheText() {
        let block = "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----"
        XCTAssertEqual(length(block + "\nnext line"), block.utf8.count)
        XCTAssertEqual(length("-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC"), 60, "a cut block is masked to the end")
        XCTAssertNil(length("-----BEGIN CERTIFICATE-----\nMIIDdzCCAl+gAwIBAgIE\n-----END CERTIFICATE-----"), "certificates are public")
        XCTAssertNil(length("-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkq\n-----END PUBLIC KEY-----"))
    }

    func testOnlyBytesThatStartAPrefixAreCandidates() {
        XCTAssertTrue(index.mayStart(with: UInt8(ascii: "a")))
        XCTAssertTrue(index.mayStart(with: UInt8(ascii: "-")))
        XCTAssertTrue(index.mayStart(with: UInt8(ascii: "7")), "a digit-led row makes every digit a candidate")
        XCTAssertFalse(index.mayStart(with: UInt8(ascii: "q")))
        XCTAssertFalse(index.mayStart(with: UInt8(ascii: "$")))
    }
}
