import Foundation

/// Realistic JSON response bodies: a page of user objects with nested arrays and objects,
/// strings, numbers, booleans, and sensitive keys (`password`, `token`, `api_key`) that
/// `.standard` redaction masks.
enum JSONFixture {
    /// A JSON object of about `bytes` bytes (never more, at least one user).
    static func body(bytes: Int) -> Data {
        let head = #"{"page":1,"token":"eyJhbGciOiJIUzI1NiJ9.page.signature","users":["#
        let tail = #"],"meta":{"total":1000,"generatedAt":"2024-05-01T12:00:00Z","tags":["a","b"]}}"#
        var text = head
        var index = 0
        while true {
            let next = user(index)
            let separator = index == 0 ? "" : ","
            if index > 0, text.utf8.count + separator.utf8.count + next.utf8.count + tail.utf8.count > bytes { break }
            text += separator + next
            index += 1
        }
        text += tail
        // Pad with spaces so sizes are exact; JSON allows whitespace before the end.
        let padding = max(0, bytes - text.utf8.count)
        return Data((String(text.dropLast()) + String(repeating: " ", count: padding) + "}").utf8)
    }

    /// One user object; values vary with `index` so bodies are not one repeated string.
    private static func user(_ index: Int) -> String {
        #"{"id":\#(index),"name":"User \#(index) O'Brien","email":"user\#(index)@example.com","#
            + #""password":"hunter\#(index)!","api_key":"sk_live_\#(index)abcdef","active":\#(index % 2 == 0),"#
            + #""score":\#(Double(index) * 1.25),"roles":["reader","writer"],"#
            + #""address":{"street":"\#(index) Main St","city":"Richmond","zip":"TW9 \#(index % 10)AB"},"#
            + #""history":[{"at":1714560000,"event":"login"},{"at":1714563600,"event":"purchase","amount":19.99}]}"#
    }
}
