import Foundation
import HTTPCoreText

extension HTTPEvent.Request {
    /// A `curl` command line that sends this request as the event shows it: redacted, so a
    /// masked value stays `[REDACTED]`, and safe to paste into a POSIX shell.
    ///
    /// ```swift
    /// print(event.request.curlCommand)
    /// // curl -g -X POST 'https://api.example.com/login?client_secret=[REDACTED]' \
    /// //   -H 'Content-Type: application/json' --data-binary '{"user":"roy","password":"[REDACTED]"}'
    /// ```
    ///
    /// Every argument is single-quoted (a `'` inside becomes `'\''`); `-g` keeps curl from
    /// reading `[REDACTED]` as a URL range. `Content-Length` and `Host` are left to curl. A body
    /// that is not UTF-8 text is passed through `base64 -d`; a body that the policy cut short
    /// is sent as captured, with a comment saying so.
    public var curlCommand: String {
        var arguments = ["curl", "-g"]
        switch method {
        case .get where body == nil: break
        case .head: arguments.append("--head")
        default: arguments += ["-X", method.rawValue]
        }
        arguments.append(url)
        for field in headers where !["content-length", "host"].contains(field.name.lowercased()) {
            arguments += ["-H", "\(field.name): \(field.value)"]
        }
        var prefix = ""
        if let body {
            if let text = UTF8Text.decode(body, isCut: isBodyTruncated), !text.contains("\0") {
                arguments += ["--data-binary", text]
            } else {
                prefix = "printf '%s' \(Self.quoted(body.base64EncodedString())) | base64 -d | "
                arguments += ["--data-binary", "@-"]
            }
        }
        let command = prefix + arguments.map(Self.quoted).joined(separator: " ")
        return isBodyTruncated ? command + " # the body was cut to what the policy captured" : command
    }

    /// `text` in single quotes for a POSIX shell; a plain word stays as it is.
    static func quoted(_ text: String) -> String {
        let plain = !text.isEmpty && text.unicodeScalars.allSatisfy { scalar in
            scalar.isASCII && (CharacterSet.alphanumerics.contains(scalar) || "-_./:@%+=,".unicodeScalars.contains(scalar))
        }
        return plain ? text : "'" + text.replacingOccurrences(of: "'", with: #"'\''"#) + "'"
    }
}
