import Foundation
import HTTPCoreLoopback
import HTTPCoreText

/// The checks dev-see's server (Fastify 5) applies to a `POST /api/logs`, in its order:
/// content type (415), body size (413), parsing (400), then the route's `validateLogEntry`
/// (400), with the real server's messages.
enum DevSeeLogValidator {
    /// The largest accepted request body: Fastify's default `bodyLimit`, 1 MiB.
    static let maxBodyBytes = 1_048_576

    /// A verdict on one request.
    enum Verdict {
        /// A valid log: the parsed JSON object.
        case accepted(JSONValue)
        /// Refused: the status, a one-line reason, and the JSON error body to answer.
        case rejected(status: Int, reason: String, body: String)
    }

    /// What the route's validation says when the body is not an object (a `text/plain` body,
    /// which Fastify hands over as a string, JSON `null`, a number, no body at all).
    static let notAnObject = "Request body must be a valid JSON object"

    /// A body parsed as Fastify's JSON parser reads it, beyond RFC 8259: secure-json-parse
    /// drops a leading byte order mark, `JSON.parse` reads `1e400` as `Infinity`, and the
    /// body reaches it as text Node decoded, invalid UTF-8 replaced.
    static func parse(_ body: Data) throws(JSONValue.SyntaxError) -> JSONValue {
        let json = body.starts(with: [0xEF, 0xBB, 0xBF]) ? body.dropFirst(3) : body
        return try JSONValue.parse(json, options: [.overflowingNumbersAsInfinity, .invalidUTF8AsReplacementCharacter])
    }

    /// The verdict on a `POST /api/logs` with this content type and body; `declaresLength`
    /// says whether it came with a `Content-Length` (else chunked), which Fastify compares
    /// with the length of the body once decoded as text.
    static func validate(contentType: String?, body: Data, declaresLength: Bool) -> Verdict {
        // Fastify parses `application/json` and `text/plain` (parameters such as `charset`
        // allowed); a request without a content type and without a body goes straight to the
        // route, with no body.
        let mediaType = contentType.map { type in
            type.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false)
                .first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
        }
        guard mediaType != nil || !body.isEmpty else { return validationFailed([notAnObject]) }
        guard mediaType == "application/json" || mediaType == "text/plain" else {
            return fastifyError(415, "FST_ERR_CTP_INVALID_MEDIA_TYPE", "Unsupported Media Type: \(contentType ?? "")")
        }
        // Fastify reads both types as text: Node's UTF-8 decoding turns each maximal
        // ill-formed subsequence into U+FFFD, three bytes, and Fastify limits and counts the
        // text's UTF-8 bytes. The text is never shorter than the body, so this one limit check
        // also covers Fastify's check of the declared length; and a declared length that the
        // text does not match is refused, so invalid UTF-8 passes only chunked, or in 3-byte
        // subsequences.
        let textLength = String(decoding: body, as: UTF8.self).utf8.count
        guard textLength <= maxBodyBytes else {
            return fastifyError(413, "FST_ERR_CTP_BODY_TOO_LARGE", "Request body is too large")
        }
        guard !declaresLength || textLength == body.count else {
            return fastifyError(400, "FST_ERR_CTP_INVALID_CONTENT_LENGTH", "Request body size did not match Content-Length")
        }
        // A `text/plain` body reaches the route as a string, JSON or not.
        guard mediaType == "application/json" else { return validationFailed([notAnObject]) }
        guard !body.isEmpty else {
            return fastifyError(
                400,
                "FST_ERR_CTP_EMPTY_JSON_BODY",
                "Body cannot be empty when content-type is set to 'application/json'"
            )
        }
        let value: JSONValue
        do {
            value = try parse(body)
        } catch {
            return fastifyError(400, "FST_ERR_CTP_INVALID_JSON_BODY", "Body is not valid JSON: \(error)")
        }
        // Fastify's JSON parser (secure-json-parse, protoAction and constructorAction "error")
        // refuses prototype poisoning at any depth before any route sees the body.
        guard !hasPrototypePoisoning(value) else {
            return fastifyError(400, "FST_ERR_CTP_INVALID_JSON_BODY", "Object contains forbidden prototype property")
        }
        let problems = problems(in: value)
        guard problems.isEmpty else { return validationFailed(problems) }
        return .accepted(value)
    }

    /// What dev-see's `validateLogEntry` finds wrong, in its words and order. JavaScript's
    /// `typeof` decides: `null` and arrays are objects (so `"requestHeaders": null` passes,
    /// and an array body gets the field checks), booleans are not numbers.
    private static func problems(in value: JSONValue) -> [String] {
        switch value {
        case .object, .array: break
        default: return [notAnObject]
        }
        var problems: [String] = []
        for field in ["method", "url"] where string(value[field])?.isEmpty != false {
            problems.append(#"Field "\#(field)" is required and must be a string"#)
        }
        for (field, minimum, maximum) in [("statusCode", 100.0, 599.0), ("duration", 0, Double.infinity)] {
            guard let number = number(value[field]) else {
                problems.append(#"Field "\#(field)" is required and must be a number"#)
                continue
            }
            if number < minimum || number > maximum {
                problems.append(field == "duration" ? #"Field "duration" must be >= 0"# : #"Field "statusCode" must be between 100 and 599"#)
            }
        }
        for field in ["requestHeaders", "responseHeaders"] {
            switch value[field] {
            case nil, .object, .array, .null: break
            default: problems.append(#"Field "\#(field)" must be an object"#)
            }
        }
        if let error = value["error"], string(error) == nil {
            problems.append(#"Field "error" must be a string"#)
        }
        return problems
    }

    /// A `__proto__` key, or a `constructor` key whose object value has a `prototype` key,
    /// anywhere in the document. Iterative: the document may nest deeply.
    private static func hasPrototypePoisoning(_ value: JSONValue) -> Bool {
        var pending = [value]
        while let next = pending.popLast() {
            switch next {
            case .object(let members):
                for member in members {
                    if member.key == "__proto__" { return true }
                    if member.key == "constructor", member.value["prototype"] != nil { return true }
                    pending.append(member.value)
                }
            case .array(let values):
                pending.append(contentsOf: values)
            default:
                break
            }
        }
        return false
    }

    private static func string(_ value: JSONValue?) -> String? {
        if case .string(let text) = value { text } else { nil }
    }

    /// The value of a JSON number; `nil` for anything else, booleans included.
    private static func number(_ value: JSONValue?) -> Double? {
        if case .number(let number, _) = value { number } else { nil }
    }

    private static func fastifyError(_ status: Int, _ code: String, _ message: String) -> Verdict {
        let body = JSONValue.object([
            ("statusCode", .number(Double(status), text: String(status))),
            ("code", .string(code)),
            ("error", .string(LoopbackResponse.standardReason(for: status))),
            ("message", .string(message)),
        ])
        return .rejected(status: status, reason: message, body: body.serialized)
    }

    private static func validationFailed(_ problems: [String]) -> Verdict {
        let body = JSONValue.object([("error", .string("Validation failed")), ("details", .array(problems.map(JSONValue.string)))])
        return .rejected(status: 400, reason: "Validation failed: " + problems.joined(separator: "; "), body: body.serialized)
    }
}
