import HTTPCoreTesting
import XCTest

@testable import HTTPCoreRedaction

/// The cheap check that lets header values and plain bodies skip the text rules must never
/// skip a text the rules would change: random texts from the pieces the rules react to.
final class TextRulesPrecheckTests: XCTestCase {
    func testTextsThePrecheckPassesOverAreExactlyTheOnesTheRulesLeaveAlone() {
        let pieces = [
            "token", "password", "api-key", "api_key", "--api-key", "--password", "Bearer", "basic", "jwt", "key", "secret",
            "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2ln", "eyJwYXNzd29yZCI6Imh1bnRlcjIifQ", "value", "hello", "expired",
            "3f9a1c0e8b7d6a5f4e3d", "S3CR3Tvalue12", "hunter22", "https://a.example/x?token=1", "ada", "42",
            " ", " ", " ", "=", ":", "@", "//", "-", ",", ";", "\"", "'", "(", ")", "[", "]", "\n", "\t", ".", "/",
        ]
        var random = SeededRandomNumberGenerator(seed: 0x9EC4)
        var skipped = 0
        for round in 0..<20_000 {
            let text = (0..<Int(1 + random.next() % 8)).map { _ in pieces.randomElement(using: &random)! }.joined()
            for redactor in [Redactor.standard, Redactor.strict] where !redactor.textRulesMayChange(text) {
                skipped += 1
                XCTAssertEqual(redactor.redactedText(text), text, "round \(round), \(redactor.level): the precheck skipped a text the rules change")
            }
        }
        XCTAssertGreaterThan(skipped, 1_000, "the property was checked on texts the precheck passes over")
    }

    func testOrdinaryHeaderNamesCostThePrecheckAlone() {
        let names = [
            "Content-Type", "Content-Length", "Accept", "Accept-Encoding", "User-Agent", "Host", "X-Request-Id", "X-Correlation-ID",
            "traceparent", "Authorization", "X-Api-Key", "Cookie", "Set-Cookie", "X-RateLimit-Remaining-Tokens", "X-Amz-Content-Sha256",
            "Access-Control-Allow-Origin", "Sec-WebSocket-Key", "OpenAI-Organization", "anthropic-version", "X-Goog-Api-Key",
        ]
        for name in names {
            XCTAssertFalse(Redactor.standard.textRulesMayChange(name), name)
            XCTAssertEqual(Redactor.strict.redactedHeaderName(name), name)
        }
    }
}
