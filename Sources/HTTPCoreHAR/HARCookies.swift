import Foundation
import HTTPCore
import HTTPCoreText

/// HAR `cookies` lists read from the (redacted) `Cookie` and `Set-Cookie` headers.
///
/// A piece without `=` is a value with an empty name, as browsers read it; so a header the
/// policy masked whole lists one cookie whose value is `[REDACTED]`.
enum HARCookies {
    /// The cookies of the request's `Cookie` headers: `a=1; b=2` is two cookies.
    static func requestCookies(in headers: HTTPHeaders) -> [JSONValue] {
        headers.values(for: "Cookie").flatMap { $0.split(separator: ";") }.compactMap { piece in
            let trimmed = piece.trimmingCharacters(in: .whitespaces)
            guard !trimmed.isEmpty else { return nil }
            let (name, value) = nameAndValue(trimmed)
            return .nameValue(name, value)
        }
    }

    /// One cookie per `Set-Cookie` header, with its `path`, `domain`, `expires` (when it is an
    /// HTTP date), `httpOnly` and `secure` attributes.
    static func responseCookies(in headers: HTTPHeaders, dates: Date.ISO8601FormatStyle) -> [JSONValue] {
        headers.values(for: "Set-Cookie").map { header in
            var parts = header.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
            let (name, value) = nameAndValue(parts.isEmpty ? "" : parts.removeFirst())
            var attributes: [(key: String, value: JSONValue)] = []
            for part in parts {
                let (key, attribute) = nameAndValue(part)
                switch key.lowercased() {
                case "path": attributes.append(("path", .string(attribute)))
                case "domain": attributes.append(("domain", .string(attribute)))
                case "expires":
                    if let date = HTTPDate.parse(attribute) { attributes.append(("expires", .string(dates.format(date)))) }
                case "" where attribute.lowercased() == "httponly": attributes.append(("httpOnly", true))
                case "" where attribute.lowercased() == "secure": attributes.append(("secure", true))
                default: break
                }
            }
            return JSONValue.nameValue(name, value).adding(attributes)
        }
    }

    /// `name=value` split at the first `=`; text without one is a value with an empty name.
    private static func nameAndValue(_ text: String) -> (name: String, value: String) {
        guard let equals = text.firstIndex(of: "=") else { return ("", text) }
        return (String(text[..<equals]), String(text[text.index(after: equals)...]))
    }
}
