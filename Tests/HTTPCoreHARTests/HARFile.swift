import Foundation
import XCTest

/// How the tests read what a recorder wrote: its entries as JSON objects, and a member as its
/// text has it.
enum HARFile {
    /// The `log.entries` of a HAR document, as JSON objects.
    static func entries(of document: Data) throws -> [[String: Any]] {
        let log = try XCTUnwrap((try JSONSerialization.jsonObject(with: document) as? [String: Any])?["log"] as? [String: Any])
        return try XCTUnwrap(log["entries"] as? [[String: Any]])
    }

    /// The object member `name` (`_cache`, `_genAI`) as written in `text`, the first one, each
    /// line without its indentation.
    static func member(_ name: String, in text: String) throws -> [String] {
        let start = try XCTUnwrap(text.range(of: "\"\(name)\": {"), text).lowerBound
        var depth = 0
        var end = start
        for index in text[start...].indices {
            if text[index] == "{" { depth += 1 }
            if text[index] == "}" {
                depth -= 1
                if depth == 0 { end = text.index(after: index); break }
            }
        }
        return text[start..<end].split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
    }
}
