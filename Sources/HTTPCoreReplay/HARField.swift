import Foundation
import HTTPCore
import HTTPCoreText

/// A value of a HAR document with the path it was read at, so that a field that breaks a
/// rule is named in the error: `users.har: log.entries[2].request.url: missing, a string is required`.
struct HARField {
    let value: JSONValue
    let path: String
    let file: String

    init(_ value: JSONValue, path: String, file: String) {
        self.value = value
        self.path = path
        self.file = file
    }

    static func failure(in file: String, _ path: String, _ rule: String) -> HTTPError {
        .transport(.invalidFixture, message: "\(file): \(path.isEmpty ? "" : "\(path): ")\(rule)")
    }

    private func failure(_ rule: String) -> HTTPError {
        Self.failure(in: file, path, rule)
    }

    private func child(_ key: String) -> String { path.isEmpty ? key : "\(path).\(key)" }

    /// The member `key`, which must be there.
    func member(_ key: String) throws(HTTPError) -> HARField {
        guard case .object = value else { throw failure("is not an object") }
        guard let member = value[key] else { throw Self.failure(in: file, child(key), "missing") }
        return HARField(member, path: child(key), file: file)
    }

    /// The member `key`, when there and not `null`.
    func optionalMember(_ key: String) -> HARField? {
        guard let member = value[key], member != .null else { return nil }
        return HARField(member, path: child(key), file: file)
    }

    /// The elements of an array.
    func elements() throws(HTTPError) -> [HARField] {
        guard case .array(let values) = value else { throw failure("is not an array") }
        return values.enumerated().map { HARField($1, path: "\(path)[\($0)]", file: file) }
    }

    /// A string, which it must be.
    func text() throws(HTTPError) -> String {
        guard case .string(let text) = value else { throw failure("is not a string") }
        return text
    }

    /// An integer, which it must be.
    func integer() throws(HTTPError) -> Int {
        guard case .number(let number, _) = value, let integer = Int(exactly: number) else { throw failure("is not an integer") }
        return integer
    }

    var string: String? {
        if case .string(let text) = value { return text }
        return nil
    }

    var number: Double? {
        if case .number(let number, _) = value { return number }
        return nil
    }

    /// HAR's `[{name, value}]` headers, in order.
    func headers() throws(HTTPError) -> HTTPHeaders {
        var headers = HTTPHeaders()
        for header in try elements() {
            headers.add(name: try header.member("name").text(), value: try header.member("value").text())
        }
        return headers
    }

    /// A body's `text`, decoded from base64 when the member `encodingKey` says so; `nil`
    /// without a `text`.
    func bodyText(encodingKey: String) throws(HTTPError) -> Data? {
        guard let text = optionalMember("text") else { return nil }
        let string = try text.text()
        guard optionalMember(encodingKey)?.string == "base64" else { return Data(string.utf8) }
        guard let data = Data(base64Encoded: string) else { throw Self.failure(in: file, text.path, "is not base64, as \(encodingKey) says") }
        return data
    }
}
