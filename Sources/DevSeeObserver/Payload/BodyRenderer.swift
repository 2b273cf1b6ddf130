import Foundation

/// Renders a body for a payload: UTF-8 text when valid, else `base64:<...>`, cut to a byte
/// budget without splitting a UTF-8 character, with a visible marker when cut.
enum BodyRenderer {
    static func render(_ body: CapturedBody, budget: Int) -> String {
        let data = body.data
        let isCut = data.count > budget
        let shown = isCut ? data.prefix(budget) : data
        let marker = isCut || body.isTruncated ? "…[truncated: \(body.totalByteCount) bytes in all]" : ""
        // A cut (here or upstream) may end inside a character: up to 3 bytes may go.
        let droppable = isCut || body.isTruncated ? min(3, shown.count) : 0
        for dropped in 0...droppable {
            if let text = String(data: shown.dropLast(dropped), encoding: .utf8) {
                return text + marker
            }
        }
        return "base64:" + shown.base64EncodedString() + marker
    }
}
