import Foundation

/// The checks dev-see's server (Fastify 5) applies to a `POST /api/logs`, in its order:
/// content type (415), body size (413), JSON syntax (400), then the log schema (400).
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

    static func validate(contentType: String?, body: Data) -> Verdict {
        if let contentType {
            let mediaType = contentType.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false)
                .first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
            guard mediaType == "application/json" else {
                return fastifyError(415, "FST_ERR_CTP_INVALID_MEDIA_TYPE", "Unsupported Media Type: \(contentType)")
            }
        } else if !body.isEmpty {
            return fastifyError(415, "FST_ERR_CTP_INVALID_MEDIA_TYPE", "Unsupported Media Type")
        } else {
            // Fastify hands a bodiless request without a content type straight to the route,
            // whose validation then finds no object.
            return validationFailed([("body", "must be a JSON object")])
        }

        guard body.count <= maxBodyBytes else {
            return fastifyError(413, "FST_ERR_CTP_BODY_TOO_LARGE", "Request body is too large")
        }
        guard !body.isEmpty else {
            return fastifyError(
                400,
                "FST_ERR_CTP_EMPTY_JSON_BODY",
                "Body cannot be empty when content-type is set to 'application/json'"
            )
        }
        let value: JSONValue
        do {
            value = try JSONValue.parse(body)
        } catch {
            return fastifyError(400, "FST_ERR_CTP_INVALID_JSON_BODY", "Body is not valid JSON: \(error)")
        }
        guard case .object = value else {
            return validationFailed([("body", "must be a JSON object")])
        }
        // Fastify's JSON parser (secure-json-parse, protoAction and constructorAction "error")
        // refuses prototype poisoning at any depth before any route sees the body.
        guard !hasPrototypePoisoning(value) else {
            return fastifyError(400, "FST_ERR_CTP_INVALID_JSON_BODY", "Object contains forbidden prototype property")
        }

        var problems: [(field: String, message: String)] = []
        for field in ["method", "url"] where string(value[field])?.isEmpty != false {
            problems.append((field, "must be a non-empty string"))
        }
        if number(value["statusCode"]).map({ (100...599).contains($0) }) != true {
            problems.append(("statusCode", "must be a number from 100 to 599"))
        }
        if number(value["duration"]).map({ $0 >= 0 }) != true {
            problems.append(("duration", "must be a number >= 0"))
        }
        // The server checks that headers are objects; it accepts any values in them (null,
        // numbers), as its schema does not type them.
        for field in ["requestHeaders", "responseHeaders"] {
            guard let headers = value[field] else { continue }
            guard case .object = headers else {
                problems.append((field, "must be an object"))
                continue
            }
        }
        if let error = value["error"], string(error) == nil {
            problems.append(("error", "must be a string when present"))
        }
        guard problems.isEmpty else { return validationFailed(problems) }
        return .accepted(value)
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

    private static func validationFailed(_ problems: [(field: String, message: String)]) -> Verdict {
        // The real server lists each problem as one string.
        let details = problems.map { problem in JSONValue.string("\(problem.field) \(problem.message)") }
        let body = JSONValue.object([("error", .string("Validation failed")), ("details", .array(details))])
        let reason = "Validation failed: " + problems.map { "\($0.field) \($0.message)" }.joined(separator: "; ")
        return .rejected(status: 400, reason: reason, body: body.serialized)
    }
}
