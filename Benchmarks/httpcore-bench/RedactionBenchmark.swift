import Foundation
import HTTPCore
import HTTPCoreObservation
import HTTPCoreGenAI
import HTTPCoreHAR
import HTTPCoreTestPeers

/// Section 5: throughput of every masker of `Redactor.standard`, on realistic and on
/// adversarial inputs (target: at least 50 MB/s on 1 MiB, JSON at 320 MB/s), and what the
/// precision corpus comes to: secrets shown and harmless values changed.
struct RedactionBenchmark {
    let minimumSeconds: Double
    /// Only the rows whose label contains this text, when set.
    let rowFilter: String?

    init(quick: Bool, rowFilter: String? = nil) {
        minimumSeconds = quick ? 0.2 : 0.5
        self.rowFilter = rowFilter
    }

    /// One measured input: what it is, and how to make it and the call that masks it (made
    /// only when the row runs, so a profile of one row shows that row).
    private struct Case {
        let label: String
        let prepare: () -> (bytes: Int, mask: () -> Int)
    }

    func run() -> SectionReport {
        var report = SectionReport(key: "redaction", title: "5. Redaction: Redactor.standard, every masker", columns: [
            Column(header: "Input", key: "input"),
            Column(header: "Bytes", key: "bytes"),
            Column(header: "Iterations", key: "iterations"),
            Column(header: "Seconds", key: "seconds"),
            Column(header: "MB/s", key: "megabytes_per_second"),
        ])
        for entry in Self.cases() where rowFilter.map(entry.label.contains) ?? true {
            let (bytes, mask) = entry.prepare()
            var iterations = 0
            let start = nowNanoseconds()
            repeat {
                blackHole(mask())
                iterations += 1
            } while secondsSince(start) < minimumSeconds
            let seconds = secondsSince(start)
            let megabytesPerSecond = Double(bytes * iterations) / seconds / 1e6
            report.rows.append([
                .text(entry.label), .integer(bytes), .integer(iterations), .number(seconds, decimals: 2),
                .number(megabytesPerSecond, decimals: 1),
            ])
            // JSON's target (twice its 160 MB/s before the key table and run copies) is for
            // documents of 64 KiB and more; a 1 KiB one pays a fixed setup.
            let isJSON = entry.label.hasPrefix("JSON") && !entry.label.hasSuffix("1 KiB")
            report.targets.append(TargetCheck(
                name: "masking \(entry.label)", measured: megabytesPerSecond, comparison: .atLeast, limit: isJSON ? 320 : 50, unit: "MB/s"
            ))
        }
        report.notes = [
            "SSE and NDJSON: an LLM chat completion streamed, chunk after chunk with deltas and a usage chunk, masked as a captured body.",
            "JSON: a page of user objects with nested objects and arrays; password, api_key and token values are masked.",
            "Adversarial rows are shaped to defeat naive scanning (one huge value, thousands of parts or pairs).",
            "cURL rows render HTTPEvent.Request.curlCommand of a redacted request whose body is 50 MB (target: >= 50 MB/s).",
            "MB = 10^6 bytes of input; each row repeated for at least \(minimumSeconds) s. Target: >= 50 MB/s at 1 MiB "
                + "(URLs and free text at 64 KiB, the most that is read of them).",
        ]
        report.notes += Self.corpusNotes(&report.targets)
        return report
    }

    private static func cases() -> [Case] {
        let redactor = Redactor.standard
        let mebibyte = 1024 * 1024
        func body(_ label: String, _ data: @escaping @autoclosure () -> Data, _ type: String?) -> Case {
            Case(label: label) {
                let data = data()
                return (data.count, { redactor.redactedBody(data, contentType: type).count })
            }
        }
        func text(_ label: String, _ value: @escaping @autoclosure () -> String) -> Case {
            Case(label: label) {
                let value = value()
                return (value.utf8.count, { redactor.redactedText(value).utf8.count })
            }
        }
        func url(_ label: String, _ value: @escaping @autoclosure () -> String) -> Case {
            Case(label: label) {
                let value = value()
                return (value.utf8.count, { redactor.redactedURL(string: value).utf8.count })
            }
        }
        func curl(_ label: String, _ body: @escaping @autoclosure () -> Data) -> Case {
            Case(label: label) {
                let body = body()
                let request = HTTPEvent.ExposedRequest(
                    method: .post, url: "https://api.example.com/upload?token=[REDACTED]",
                    headers: ["Content-Type": "application/octet-stream", "X-Note": "it's"], body: body
                )
                return (body.count, { request.curlCommand.utf8.count })
            }
        }
        let boundary = "b0undary"
        let part = "--\(boundary)\r\nContent-Disposition: form-data; name=\"field\"\r\n\r\nvalue\r\n"
        let secretPart = "--\(boundary)\r\nContent-Disposition: form-data; name=\"password\"\r\n\r\nS3CR3T\r\n"
        // Free text is read up to Redactor.maximumScrubbedTextBytes (64 KiB): measured at that size.
        let textBytes = Redactor.maximumScrubbedTextBytes
        let prose = "request failed: 401 for https://api.example.com/v1/items?page=2&token=S3CR3T password=hunter2 "
        // URLs are read up to Redactor.maximumURLBytes (64 KiB): measured at that size.
        let urlBytes = Redactor.maximumURLBytes
        let curlBytes = 50_000_000
        let sseChunk = #"data: {"id":"chatcmpl-9x","object":"chat.completion.chunk","created":1717000000,"model":"gpt-4o","#
            + #""choices":[{"index":0,"delta":{"content":" the answer is"},"logprobs":null,"finish_reason":null}],"usage":null}"# + "\n\n"
        let ndjsonChunk = #"{"model":"llama3","created_at":"2024-05-01T10:00:00Z","message":{"role":"assistant","content":" the"},"done":false}"# + "\n"
        return [
            curl("cURL command, 50 MB binary body", binaryFixture(bytes: curlBytes)),
            curl("cURL command, 50 MB JSON body", JSONFixture.body(bytes: curlBytes)),
            curl("cURL command, 50 MB text, quote-heavy", Data(repeated(#"{"note":"it's Ann's","n":1}"#, toBytes: curlBytes).utf8)),
            body("JSON 1 KiB", JSONFixture.body(bytes: 1024), "application/json"),
            body("JSON 64 KiB", JSONFixture.body(bytes: 64 * 1024), "application/json"),
            body("JSON 1 MiB", JSONFixture.body(bytes: mebibyte), "application/json"),
            body("SSE 1 MiB, LLM stream", Data(repeated(sseChunk, toBytes: mebibyte).utf8), "text/event-stream"),
            body("NDJSON 1 MiB, LLM stream", Data(repeated(ndjsonChunk, toBytes: mebibyte).utf8), "application/x-ndjson"),
            body("form 1 MiB", Data(repeated("name=Ann+Lee&password=S3CR3T&page=2&", toBytes: mebibyte).utf8), "application/x-www-form-urlencoded"),
            body("form 1 MiB, one value", Data(("password=" + String(repeating: "a", count: mebibyte)).utf8), nil),
            body(
                "multipart 1 MiB, 15k parts", Data((repeated(part + secretPart, toBytes: mebibyte) + "--\(boundary)--\r\n").utf8),
                "multipart/form-data; boundary=\(boundary)"
            ),
            body("GraphQL text 1 MiB", Data(repeated("query Q { user(id: \"42\", limit: 10) { name friends(first: 5) { id } } } ", toBytes: mebibyte).utf8), "application/graphql"),
            body(
                "XML 1 MiB",
                Data(("<items>" + repeated("<item id=\"1\"><name>Ann</name><password>S3CR3T</password></item>", toBytes: mebibyte) + "</items>").utf8),
                "application/xml"
            ),
            text("error text 64 KiB", repeated(prose, toBytes: textBytes)),
            text("error text 64 KiB, JSON", repeated(#"{"error":"invalid_grant","token":"S3CR3T","n":1} "#, toBytes: textBytes)),
            text("error text 64 KiB, quotes", repeated(#""password":" "#, toBytes: textBytes)),
            url("URL 64 KiB query", "https://api.example.com/search?" + repeated("q=swift&token=S3CR3T&page=2&", toBytes: urlBytes - 40)),
            url("URL 64 KiB, nested encoded URLs", "https://a.example/?next=" + repeated("https%3A%2F%2Fb.example%2F%3Fq%3D1%26", toBytes: urlBytes - 40)),
            // Every name different, so no verdict is remembered: the worst case of each masker.
            text("error text 64 KiB, JSON, every key different", distinct(toBytes: textBytes) { #"{"error\#($0)":"invalid","token\#($0)":"S3CR3T"} "# }),
            url("URL 64 KiB query, every name different", "https://api.example.com/search?" + distinct(toBytes: urlBytes - 40) { "q\($0)=swift&token\($0)=S3CR3T&" }),
            url(
                "URL 64 KiB, nested encoded URLs, every name different",
                "https://a.example/?next=" + distinct(toBytes: urlBytes - 40) { "https%3A%2F%2Fb\($0).example%2F%3Fq\($0)%3D1%26" }
            ),
        ]
    }

    /// The precision corpus at `.standard` and `.strict`, each as the redactor of a policy that
    /// interprets LLM calls (the corpus holds their traffic): its counts as notes, and at
    /// `.standard` the targets (no secret shown; under 1% of other values changed).
    private static func corpusNotes(_ targets: inout [TargetCheck]) -> [String] {
        var notes: [String] = []
        for redactor in [Redactor.standard, Redactor.strict].map({ HTTPCorePolicy(redactor: $0).interpreting(.genAI).redactor }) {
            let outcomes = RedactionCorpus.outcomes(redactor)
            let values = outcomes.reduce(0) { $0 + $1.valueCount }
            let secrets = outcomes.reduce(0) { $0 + $1.secretValueCount }
            let over = outcomes.reduce(0) { $0 + $1.overMasked.count }
            let under = outcomes.reduce(0) { $0 + $1.underMasked.count }
            let overPercent = 100 * Double(over) / Double(max(1, values - secrets))
            notes.append(
                "Precision corpus at .\(redactor.level.rawValue): \(outcomes.count) real API bodies, \(values) values, \(secrets) secret; "
                    + "under-masked \(under), over-masked \(over) (\(String(format: "%.1f", overPercent))% of the values that are no secret)."
            )
            guard redactor.level == .standard else { continue }
            targets.append(TargetCheck(name: "corpus under-masked at .standard", measured: Double(under), comparison: .atMost, limit: 0, unit: "values"))
            targets.append(TargetCheck(name: "corpus over-masked at .standard", measured: overPercent, comparison: .below, limit: 1, unit: "%"))
        }
        return notes
    }

    /// Bytes that look random, as a compressed or binary upload does.
    private static func binaryFixture(bytes count: Int) -> Data {
        var binary = Data(count: count)
        binary.withUnsafeMutableBytes { bytes in for index in bytes.indices { bytes[index] = UInt8(truncatingIfNeeded: index &* 2_654_435_761 >> 13) } }
        return binary
    }

    /// Units numbered from 0 joined up to `bytes`, each naming its own fields.
    private static func distinct(toBytes bytes: Int, _ unit: (Int) -> String) -> String {
        var text = ""
        var index = 0
        while case let next = unit(index), text.utf8.count + next.utf8.count <= bytes {
            text += next
            index += 1
        }
        return text
    }

    private static func repeated(_ unit: String, toBytes bytes: Int) -> String {
        String(repeating: unit, count: max(1, bytes / unit.utf8.count))
    }
}
