import HTTPCore
import HTTPCoreObservation
import HTTPCoreText

extension HTTPExchangeNote {
    /// The note as a dev-see payload carries it (its object under the note's name, and its
    /// line in its `x-devsee-note-` header and above a body that is not JSON): its summary and every string value at most
    /// ``PayloadBuilder/maximumNoteStringBytes`` bytes, and every list at most
    /// ``PayloadBuilder/maximumNoteListCount`` values.
    ///
    /// A model name, a response id or a stop sequence comes from a body of up to megabytes,
    /// and cutting the bodies cannot make room for it: unbounded, one exchange's log could
    /// exceed the server's 1 MiB and be refused. A cut string ends with `…` (the marker
    /// included in the bound); a cut list keeps its first values and ends with a `…` value.
    var boundedForDevSee: HTTPExchangeNote {
        var note = self
        note.summary = Self.bounded(summary)
        note.attributes = attributes.map { attribute in
            var attribute = attribute
            switch attribute.value {
            case .string(let text): attribute.value = .string(Self.bounded(text))
            case .stringArray(let values): attribute.value = .stringArray(Self.bounded(values))
            case .int, .double, .bool: break
            }
            return attribute
        }
        return note
    }

    private static func bounded(_ text: String) -> String {
        UTF8Text.cut(text, toBytes: PayloadBuilder.maximumNoteStringBytes - TruncationMarker.ellipsis.utf8.count)
    }

    private static func bounded(_ values: [String]) -> [String] {
        let limit = PayloadBuilder.maximumNoteListCount
        guard values.count > limit else { return values.map(bounded) }
        return values.prefix(limit - 1).map(bounded) + [TruncationMarker.ellipsis]
    }
}
