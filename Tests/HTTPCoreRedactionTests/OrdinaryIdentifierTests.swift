import Foundation
import HTTPCoreRedaction
import HTTPCoreTesting
import XCTest

/// The values that look random but are no secret stay visible wherever they stand, whatever
/// the format table holds: UUIDs, hex and base64 request ids, commit SHAs, content hashes,
/// pagination cursors. Thousands of each, drawn from a seeded generator, so a row too broad for
/// its prefix shows here as the id it masked.
final class OrdinaryIdentifierTests: XCTestCase {
    private static let count = 400

    private static func identifiers() -> [(kind: String, value: String)] {
        var random = SeededRandomNumberGenerator(seed: 55)
        func string(_ length: Int, of alphabet: String) -> String {
            let characters = Array(alphabet)
            return String((0..<length).map { _ in characters[Int.random(in: 0..<characters.count, using: &random)] })
        }
        let lowerHex = "0123456789abcdef", upperHex = "0123456789ABCDEF"
        let base64URL = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
        let base62 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
        var values: [(String, String)] = []
        for _ in 0..<count {
            values.append(("UUID", [8, 4, 4, 4, 12].map { string($0, of: lowerHex) }.joined(separator: "-")))
            values.append(("UUID, capitals", [8, 4, 4, 4, 12].map { string($0, of: upperHex) }.joined(separator: "-")))
            values.append(("commit SHA", string(40, of: lowerHex)))
            values.append(("short SHA", string(7, of: lowerHex)))
            values.append(("SHA-256", string(64, of: lowerHex)))
            values.append(("request id, hex", string(32, of: lowerHex)))
            values.append(("request id, base64url 22", string(22, of: base64URL)))
            values.append(("request id, base62 24", string(24, of: base62)))
            values.append(("trace id", "00-" + string(32, of: lowerHex) + "-" + string(16, of: lowerHex) + "-01"))
            values.append(("cursor", "cursor_" + string(20, of: base62)))
            values.append(("content hash", "sha256-" + string(43, of: base64URL.replacingOccurrences(of: "-_", with: "+/")) + "="))
            values.append(("content hash, base64url", "sha256-" + string(43, of: base64URL)))
            values.append(("ETag", "W/\"" + string(27, of: base64URL) + "\""))
        }
        return values
    }

    func testOrdinaryIdentifiersStayVisibleInTextHeadersJSONAndURLs() {
        let redactor = Redactor.standard
        // For each kind and place, how many were changed, and the first one.
        var changed: [String: (count: Int, first: String)] = [:]
        func check(_ kind: String, _ place: String, _ input: String, _ output: String) {
            guard input != output else { return }
            changed["\(kind) in \(place)", default: (0, "\(input) -> \(output)")].count += 1
        }
        for (kind, value) in Self.identifiers() {
            let text = "request \(value) failed"
            let escaped = value.replacingOccurrences(of: "\"", with: "\\\"")
            let json = #"{"id":"\#(escaped)","n":1}"#
            check(kind, "text", text, redactor.redactedText(text))
            check(kind, "a header", value, redactor.redactedHeaderValue(value, name: "X-Request-Id"))
            check(kind, "JSON", json, String(decoding: redactor.redactedBody(Data(json.utf8), contentType: "application/json"), as: UTF8.self))
            // In a URL, `/`, `+` and `=` are structure (a `=` after a blank name is masked, even
            // decoded from `%3D`): there, ids are written in URL-safe letters.
            guard !value.contains(where: { "/+=\"".contains($0) }) else { continue }
            let url = "https://api.example.com/v1/items/\(value)?after=\(value)"
            check(kind, "a URL", url, redactor.redactedURL(string: url))
        }
        XCTAssertTrue(changed.isEmpty, changed.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value.count), e.g. \($0.value.first)" }.joined(separator: "\n"))
    }
}
