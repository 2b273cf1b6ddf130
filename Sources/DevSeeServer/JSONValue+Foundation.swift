import Foundation
import HTTPCoreText

extension JSONValue {
    /// This value as the Foundation objects `JSONSerialization` reads from its text: `NSNull`,
    /// `NSNumber` (an integer for a whole number spelled without a fraction or exponent, a
    /// `Double` otherwise, `1` or `0` for a boolean), `String`, `[Any]` and `[String: Any]`
    /// (a repeated key keeps its last value). Immutable, so it may be handed to any thread.
    var foundationObject: Any {
        switch self {
        case .null: NSNull()
        case .bool(let value): NSNumber(value: value)
        case .number(let value, let text):
            if !text.contains(where: { $0 == "." || $0 == "e" || $0 == "E" }), let integer = Int(text) {
                NSNumber(value: integer)
            } else {
                NSNumber(value: value)
            }
        case .string(let value): value
        case .array(let values): values.map(\.foundationObject)
        case .object(let members): Dictionary(members.map { ($0.key, $0.value.foundationObject) }, uniquingKeysWith: { $1 })
        }
    }
}
