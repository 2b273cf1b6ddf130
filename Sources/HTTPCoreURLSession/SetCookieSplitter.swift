/// Splits a `Set-Cookie` value that URLSession joined with `", "` back into cookies.
///
/// A comma separates two cookies only when what follows looks like `name=`; the comma
/// inside an `Expires=Wed, 21 Oct 2026 07:28:00 GMT` attribute does not.
enum SetCookieSplitter {
    static func split(_ joined: String) -> [String] {
        var cookies: [String] = []
        var current = Substring()
        var rest = Substring(joined)
        while let comma = rest.firstIndex(of: ",") {
            let after = rest[rest.index(after: comma)...]
            current += rest[..<comma]
            if startsCookie(after) {
                cookies.append(current.trimmingCharacters(in: .whitespaces))
                current = ""
            } else {
                current += ","
            }
            rest = after
        }
        current += rest
        let last = current.trimmingCharacters(in: .whitespaces)
        if !last.isEmpty { cookies.append(last) }
        return cookies
    }

    private static func startsCookie(_ text: Substring) -> Bool {
        let trimmed = text.drop { $0 == " " }
        guard let equals = trimmed.firstIndex(of: "=") else { return false }
        let name = trimmed[..<equals]
        return !name.isEmpty && !name.contains { $0 == " " || $0 == ";" || $0 == "," }
    }
}
