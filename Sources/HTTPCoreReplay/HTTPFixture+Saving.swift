import Foundation
import HTTPCore
import HTTPCoreRedaction
import HTTPCoreText

extension HTTPFixture {
    /// Writes what the fixture's clients exchanged to its file, when it records; does nothing
    /// when it replays.
    ///
    /// Waits for the events of the exchanges that ended, then writes them as HAR 1.2: entries in
    /// the order they started, indented, each member in the same place every time, without
    /// the ids that differ from run to run (`_requestId`, `_correlationId`), so that a diff of
    /// two recordings shows what changed. Nothing is written when an entry would hold:
    /// - text the standard redactor still masks, whatever the policy's redactor let through (a
    ///   credential format, a JWT, a `password=` pair): the error names the entry and the field;
    /// - a body cut at the policy's capture, a stream's messages past its cap, or a body the
    ///   redactor could not read as its type (JSON that is not, say) and masked from there: a
    ///   replay would not give back what came.
    ///
    /// - Throws: `invalid_fixture` naming the entry and the field,
    ///   or saying why the file could not be written.
    public func save() async throws(HTTPError) {
        guard let recorder = recorderForSaving else { return }
        await dispatcher.flush()
        var document: JSONValue
        do {
            document = try JSONValue.parse(recorder.harDocument())
        } catch {
            throw .transport(.invalidFixture, message: "\(file.lastPathComponent): the recorder's HAR document did not parse: \(error)")
        }
        guard case .object(var log) = document["log"] ?? .null, case .array(let entries) = document["log"]?["entries"] ?? .null else {
            throw .transport(.invalidFixture, message: "\(file.lastPathComponent): the recorder's HAR document has no log.entries")
        }
        let kept = try entries.enumerated().map { index, entry throws(HTTPError) in try Self.checked(entry, index: index, file: file.lastPathComponent) }
        if let position = log.firstIndex(where: { $0.key == "entries" }) { log[position].value = .array(kept) }
        document.set("log", .object(log))
        do {
            try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(document.serialized(style: .indented) + [UInt8(ascii: "\n")]).write(to: file, options: .atomic)
        } catch {
            throw .transport(.invalidFixture, message: "\(file.path): cannot be written: \(error.localizedDescription)", underlyingError: error)
        }
    }

    /// `entry` without its run-to-run ids, once nothing in it is cut or still secret.
    private static func checked(_ entry: JSONValue, index: Int, file: String) throws(HTTPError) -> JSONValue {
        if let dropped = entry["_droppedStreamMessages"], case .number(let count, _) = dropped, count > 0 {
            throw .transport(.invalidFixture, message: "\(file): entries[\(index)] kept some of its stream's messages, \(Int(count)) not: raise the policy's streamMessages.maxCount")
        }
        try check(entry, path: "entries[\(index)]", file: file)
        guard case .object(let members) = entry else { return entry }
        return .object(members.filter { $0.key != "_requestId" && $0.key != "_correlationId" })
    }

    /// Whether the standard redactor leaves `text` as it is: nothing in it is still secret.
    ///
    /// A URL's masked query value (`?api_key=[REDACTED]`) is masked again as free text, since a
    /// URL there ends at the bracket and the value before it is empty: a mask next to a mask
    /// adds nothing, so the comparison reads each run of masks as one.
    static func isMasked(_ text: String) -> Bool {
        let redacted = Redactor.standard.redactedText(text)
        guard redacted != text else { return true }
        var collapsed = redacted
        while collapsed.contains("[REDACTED][REDACTED]") { collapsed = collapsed.replacingOccurrences(of: "[REDACTED][REDACTED]", with: "[REDACTED]") }
        return collapsed == text
    }

    /// Throws when a string in `value` is one the standard redactor would still mask, or a
    /// body is marked cut.
    private static func check(_ value: JSONValue, path: String, file: String) throws(HTTPError) {
        switch value {
        case .string(let text):
            if text.contains("[REDACTED: unreadable") {
                throw .transport(
                    .invalidFixture,
                    message: "\(file): \(path) is a body the redactor could not read as its type, so it masked the rest: not written, since a replay would not give back what came"
                )
            }
            guard Self.isMasked(text) else {
                throw .transport(
                    .invalidFixture,
                    message: "\(file): \(path) holds text the redactor masks (\(Redactor.standard.redactedText(String(text.prefix(120))))): not written; mask it with the policy's redactor"
                )
            }
        case .object(let members):
            for member in members {
                if member.key == "_truncated", member.value == .bool(true) {
                    throw .transport(.invalidFixture, message: "\(file): \(path) was cut at the policy's capture: not written; raise its bodyCapture")
                }
                try check(member.value, path: "\(path).\(member.key)", file: file)
            }
        case .array(let values):
            for (index, element) in values.enumerated() { try check(element, path: "\(path)[\(index)]", file: file) }
        default:
            break
        }
    }
}
