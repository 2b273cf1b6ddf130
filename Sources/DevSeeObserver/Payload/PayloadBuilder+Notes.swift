import Foundation
import HTTPCore
import HTTPCoreText

/// Where the notes about an exchange stand in the dev-see viewer, which shows headers and bodies
/// and no field of ours: each note is a response header `x-devsee-note-<kind>` (`attempt`,
/// `redirect`, `error`, `stream`, or an interpreter's note name such as `genai`), listed before
/// the server's headers, whose value is the note's line (`[attempt 2, the last: the exchange
/// took 1.4 s in all]`).
///
/// The same lines also lead the body they speak of (the redirect route the request body, the
/// others the response body) unless that body parses as JSON as a whole: the viewer
/// pretty-prints a body only then, so a JSON body is left exactly as captured, and a text body,
/// a stream's events, `base64:` bytes or no body at all starts with its lines as before.
extension PayloadBuilder {
    /// What starts the name of every header that carries a note.
    static let noteHeaderPrefix = "x-devsee-note-"

    /// One note about an exchange: the kind its header is named after, and its line.
    struct NoteLine: Sendable, Hashable {
        /// The header's name after ``PayloadBuilder/noteHeaderPrefix``: lowercase letters,
        /// digits and `-`.
        var kind: String
        var text: String

        init(kind: String, text: String) {
            let lowered = kind.lowercased().unicodeScalars.map { scalar -> Character in
                ("a"..."z").contains(scalar) || ("0"..."9").contains(scalar) ? Character(scalar) : "-"
            }
            self.kind = lowered.isEmpty ? "note" : String(lowered)
            self.text = text
        }

        /// The stream's note, without the `[events]` heading that only means something above
        /// the events themselves.
        init(streamNote: String) {
            let heading = "\n\n[events]"
            self.init(kind: "stream", text: streamNote.hasSuffix(heading) ? String(streamNote.dropLast(heading.count)) : streamNote)
        }
    }

    /// `headers` with a header per note before them.
    static func headers(_ headers: HTTPHeaders, ledBy notes: [NoteLine]) -> HTTPHeaders {
        guard !notes.isEmpty else { return headers }
        var shown = HTTPHeaders()
        shown.reserveCapacity(notes.count + headers.count)
        for note in notes { shown.add(name: noteHeaderPrefix + note.kind, value: note.text) }
        for field in headers { shown.add(name: field.name, value: field.value) }
        return shown
    }

    /// `lines` when they may lead `body` (see ``leadLines(_:above:)``), then the body.
    static func body(_ body: String?, ledBy lines: String?) -> String? {
        joined(leadLines(lines, above: body), body)
    }

    /// `lines`, or `nil` when `body` parses as JSON as a whole: the viewer would no longer
    /// pretty-print it with a line above it (the lines stand in the note headers anyway).
    static func leadLines(_ lines: String?, above body: String?) -> String? {
        guard let lines else { return nil }
        guard let body, parsesAsJSON(body) else { return lines }
        return nil
    }

    /// Whether `text` is one JSON value with nothing but whitespace around it, as the viewer's
    /// `JSON.parse` reads it; checked without building its objects' members.
    static func parsesAsJSON(_ text: String) -> Bool {
        // Most text bodies are told apart by their first byte, without a parse.
        guard let first = text.utf8.first(where: { $0 != 0x20 && $0 != 0x0A && $0 != 0x0D && $0 != 0x09 }),
            first == UInt8(ascii: "{") || first == UInt8(ascii: "[") || first == UInt8(ascii: "\"") || first == UInt8(ascii: "-")
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first) || first == UInt8(ascii: "t") || first == UInt8(ascii: "f")
                || first == UInt8(ascii: "n")
        else { return false }
        return (try? JSONValue.parse(Data(text.utf8), keepingMembersNamed: [], options: [.overflowingNumbersAsInfinity])) != nil
    }
}
