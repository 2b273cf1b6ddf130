import Foundation
@testable import HTTPCoreRedaction
import XCTest

/// Every row of ``KnownSecretFormat/all`` against ``KnownSecretFormatCorpus``: each secret is
/// masked whole by `Redactor.standard` wherever text stands, and each near-miss is kept byte for
/// byte in the same places.
final class KnownSecretFormatTableTests: XCTestCase {
    private let redactor = Redactor.standard
    private let examples = KnownSecretFormatCorpus.examples

    // MARK: The table and its corpus

    func testEveryRowHasAnExampleAndEveryExampleNamesARow() {
        let rowNames = KnownSecretFormat.all.map(\.name)
        XCTAssertGreaterThanOrEqual(rowNames.count, 200)
        XCTAssertEqual(Set(rowNames).count, rowNames.count, "every row's name is unique")
        let exampleNames = Set(examples.map(\.format))
        XCTAssertEqual(Set(rowNames).subtracting(exampleNames).sorted(), [], "rows without an example")
        XCTAssertEqual(exampleNames.subtracting(rowNames).sorted(), [], "examples that name no row")
    }

    func testEverySecretIsTheWholeMatchOfItsOwnRow() {
        let rows = Dictionary(KnownSecretFormat.all.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        for example in examples {
            guard let row = rows[example.format] else { continue }
            let index = SecretFormatIndex([row])
            XCTAssertEqual(index.secretLength(atStartOf: Array(example.secret.utf8)), example.secret.utf8.count, example.format)
            XCTAssertNil(index.secretLength(atStartOf: Array(example.nearMiss.utf8)), example.format)
        }
    }

    func testThePathSegmentGapListNamesRowsTheURLRulesStillMiss() {
        let rowNames = Set(KnownSecretFormat.all.map(\.name))
        XCTAssertEqual(Self.pathSegmentGaps.subtracting(rowNames).sorted(), [])
        // A row leaves the list once the URL rules mask it there, so the list stays exact.
        for example in examples where Self.pathSegmentGaps.contains(example.format) {
            XCTAssertNotEqual(redactor.redactedURL(string: "https://a.example/keys/\(example.secret)"), "https://a.example/keys/[REDACTED]", example.format)
        }
    }

    // MARK: Secrets, masked whole

    func testEverySecretIsMaskedWholeInFreeText() {
        for example in examples {
            XCTAssertEqual(
                redactor.redactedText("deploy failed with \(example.secret). retry"), "deploy failed with [REDACTED]. retry", example.format
            )
        }
    }

    func testEverySecretIsMaskedInAJSONStringValueUnderANeutralKey() {
        for example in examples {
            XCTAssertEqual(json(#"{"note":\#(Self.quoted(example.secret)),"n":1}"#), #"{"note":"[REDACTED]","n":1}"#, example.format)
        }
    }

    func testEverySecretIsMaskedInAStreamedDelta() {
        for example in examples {
            XCTAssertEqual(stream(Self.delta(Self.quoted(example.secret))), Self.delta(#""[REDACTED]""#), example.format)
        }
    }

    func testEverySecretIsMaskedInAHeaderValueUnderANeutralName() {
        // A header value is one line: a PEM block's line breaks cannot stand in it.
        for example in examples where Self.headerCanCarry(example.secret) {
            XCTAssertEqual(redactor.redactedHeaderValue(example.secret, name: "X-Debug"), Redactor.mask, example.format)
        }
    }

    func testEverySecretIsMaskedInAQueryValue() {
        // `&`, `#` and whitespace end a query value: a PEM block cannot stand in one unescaped.
        for example in examples where Self.queryCanCarry(example.secret) {
            XCTAssertEqual(
                redactor.redactedURL(string: "https://a.example/v1?q=\(example.secret)&page=2"), "https://a.example/v1?q=[REDACTED]&page=2",
                example.format
            )
        }
    }

    func testEverySecretIsMaskedInAPathSegment() {
        // `/` ends a segment: webhook URLs, base64 and crypt hashes that hold one span segments.
        for example in examples where Self.pathCanCarry(example.secret) && !Self.pathSegmentGaps.contains(example.format) {
            XCTAssertEqual(
                redactor.redactedURL(string: "https://a.example/keys/\(example.secret)/usage"), "https://a.example/keys/[REDACTED]/usage",
                example.format
            )
        }
    }

    // MARK: Near-misses, kept

    func testEveryNearMissIsKeptInFreeTextJSONAndStreamedDeltas() {
        for example in examples {
            let text = "deploy failed with \(example.nearMiss). retry"
            XCTAssertEqual(redactor.redactedText(text), text, example.format)
            let body = #"{"note":\#(Self.quoted(example.nearMiss)),"n":1}"#
            XCTAssertEqual(json(body), body, example.format)
            let delta = Self.delta(Self.quoted(example.nearMiss))
            XCTAssertEqual(stream(delta), delta, example.format)
        }
    }

    func testEveryNearMissIsKeptInHeaderValuesQueryValuesAndPathSegments() {
        for example in examples {
            if Self.headerCanCarry(example.nearMiss) {
                XCTAssertEqual(redactor.redactedHeaderValue(example.nearMiss, name: "X-Debug"), example.nearMiss, example.format)
            }
            if Self.queryCanCarry(example.nearMiss) {
                let url = "https://a.example/v1?q=\(example.nearMiss)&page=2"
                XCTAssertEqual(redactor.redactedURL(string: url), url, example.format)
            }
            if Self.pathCanCarry(example.nearMiss) {
                let url = "https://a.example/keys/\(example.nearMiss)/usage"
                XCTAssertEqual(redactor.redactedURL(string: url), url, example.format)
            }
        }
    }

    func testOrdinaryWordsAndIdsThatShareAShortPrefixAreKept() {
        // Words, ids and hashes that start like a row with a short or common prefix.
        let kept = [
            "key-rotation-2024", "key-" + String(repeating: "a1", count: 15), "live_stream_2024_Final", "test_ParseNestedJSONObject2",
            "st.louis.mo.US", "patternMatcherV2", "pattern.Matcher.V2", "sat.Sun.2024", "ser.Deserializer2", "secret_santa_2024",
            "secret-sauce-v2", "api_org_chart_v2", "access-control-allow-origin", "access-sandbox-guide", "re_Compile2", "pa-Announcer3",
            "md-Button2", "fc-Barcelona1899", "cu_Later2", "u+1F600", "sk_Learn2", "pk_live_51H8xYzA1b2C3d4E5f6", "00112233445566778899",
            "1/2", "2/3/2024", "t1.Micro", "sl.Footer2", "dose2Morning", "EAAB", "AQEB", "API-V2-DOCS", "SCW123", "LTAI",
            "0f1e2d3c4b5a69788796a5b4c3d2e1f0a9b8c7d6", "3f2504e0-4f89-41d3-9a0c-0305e82c3301",
        ]
        for word in kept {
            XCTAssertEqual(redactor.redactedText("see \(word) now"), "see \(word) now", word)
            XCTAssertEqual(json(#"{"note":\#(Self.quoted(word))}"#), #"{"note":\#(Self.quoted(word))}"#, word)
            XCTAssertEqual(redactor.redactedHeaderValue(word, name: "X-Debug"), word, word)
            XCTAssertEqual(redactor.redactedURL(string: "https://a.example/v1?q=\(word)"), "https://a.example/v1?q=\(word)", word)
        }
    }

    // MARK: What each place can carry, and what the engine misses

    /// Rows whose secrets a path segment does not mask whole: a segment with `=` is read as
    /// `name=value` pairs, and one with `%` is decoded before it is looked up, so base64
    /// padding, PHC parameters and X's percent-escapes hide the format.
    static let pathSegmentGaps: Set<String> = [
        "Atlassian API token", "Atlassian Connect token", "Grafana Cloud access policy token", "Grafana legacy API key",
        "Fly.io macaroon token", "X app-only bearer token", "Argon2i hash", "scrypt PHC hash",
    ]

    private static func headerCanCarry(_ value: String) -> Bool {
        !value.contains(where: \.isNewline)
    }

    private static func queryCanCarry(_ value: String) -> Bool {
        !value.contains { $0 == "&" || $0 == "#" || $0.isWhitespace }
    }

    private static func pathCanCarry(_ value: String) -> Bool {
        !value.contains { $0 == "/" || $0 == "?" || $0 == "#" || $0.isWhitespace }
    }

    // MARK: Helpers

    /// `value` as a JSON string token, `/` unescaped as APIs send it.
    private static func quoted(_ value: String) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .withoutEscapingSlashes
        return String(decoding: (try? encoder.encode(value)) ?? Data(), as: UTF8.self)
    }

    /// A chat completion stream's event whose delta content is the JSON string `content`.
    private static func delta(_ content: String) -> String {
        #"data: {"choices":[{"delta":{"content":\#(content)}}]}"# + "\n\n"
    }

    private func json(_ body: String) -> String {
        String(decoding: redactor.redactedBody(Data(body.utf8), contentType: "application/json"), as: UTF8.self)
    }

    private func stream(_ body: String) -> String {
        String(decoding: redactor.redactedBody(Data(body.utf8), contentType: "text/event-stream"), as: UTF8.self)
    }
}
