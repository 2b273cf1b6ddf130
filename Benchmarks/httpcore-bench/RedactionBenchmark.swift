import Foundation
import HTTPCore

/// Section 5: throughput of every masker of `Redactor.standard`, on realistic and on
/// adversarial inputs (target: at least 50 MB/s on 1 MiB).
struct RedactionBenchmark {
    let minimumSeconds: Double

    init(quick: Bool) {
        minimumSeconds = quick ? 0.2 : 0.5
    }

    /// One measured input: what it is, and the call that masks it.
    private struct Case {
        let label: String
        let bytes: Int
        let mask: () -> Int
    }

    func run() -> SectionReport {
        var report = SectionReport(key: "redaction", title: "5. Redaction: Redactor.standard, every masker", columns: [
            Column(header: "Input", key: "input"),
            Column(header: "Bytes", key: "bytes"),
            Column(header: "Iterations", key: "iterations"),
            Column(header: "Seconds", key: "seconds"),
            Column(header: "MB/s", key: "megabytes_per_second"),
        ])
        for entry in Self.cases() {
            var iterations = 0
            let start = nowNanoseconds()
            repeat {
                blackHole(entry.mask())
                iterations += 1
            } while secondsSince(start) < minimumSeconds
            let seconds = secondsSince(start)
            report.rows.append([
                .text(entry.label), .integer(entry.bytes), .integer(iterations), .number(seconds, decimals: 2),
                .number(Double(entry.bytes * iterations) / seconds / 1e6, decimals: 1),
            ])
        }
        report.notes = [
            "JSON: a page of user objects with nested objects and arrays; password, api_key and token values are masked.",
            "Adversarial rows are shaped to defeat naive scanning (one huge value, thousands of parts or pairs).",
            "cURL rows render HTTPEvent.Request.curlCommand of a redacted request whose body is 50 MB (target: >= 50 MB/s).",
            "MB = 10^6 bytes of input; each row repeated for at least \(minimumSeconds) s. Target: >= 50 MB/s at 1 MiB "
                + "(URLs and free text at 64 KiB, the most that is read of them).",
        ]
        return report
    }

    private static func cases() -> [Case] {
        let redactor = Redactor.standard
        let mebibyte = 1024 * 1024
        func body(_ label: String, _ data: Data, _ type: String?) -> Case {
            Case(label: label, bytes: data.count) { redactor.redactedBody(data, contentType: type).count }
        }
        func text(_ label: String, _ value: String) -> Case {
            Case(label: label, bytes: value.utf8.count) { redactor.redactedText(value).utf8.count }
        }
        func url(_ label: String, _ value: String) -> Case {
            Case(label: label, bytes: value.utf8.count) { redactor.redactedURL(string: value).utf8.count }
        }
        func curl(_ label: String, _ body: Data) -> Case {
            let request = HTTPEvent.Request(
                method: .post, url: "https://api.example.com/upload?token=[REDACTED]",
                headers: ["Content-Type": "application/octet-stream", "X-Note": "it's"], body: body
            )
            return Case(label: label, bytes: body.count) { request.curlCommand.utf8.count }
        }
        let boundary = "b0undary"
        let part = "--\(boundary)\r\nContent-Disposition: form-data; name=\"field\"\r\n\r\nvalue\r\n"
        let secretPart = "--\(boundary)\r\nContent-Disposition: form-data; name=\"password\"\r\n\r\nS3CR3T\r\n"
        let multipart = repeated(part + secretPart, toBytes: mebibyte) + "--\(boundary)--\r\n"
        let form = repeated("name=Ann+Lee&password=S3CR3T&page=2&", toBytes: mebibyte)
        // Free text is read up to Redactor.maximumScrubbedTextBytes (64 KiB): measured at that size.
        let textBytes = Redactor.maximumScrubbedTextBytes
        let prose = repeated("request failed: 401 for https://api.example.com/v1/items?page=2&token=S3CR3T password=hunter2 ", toBytes: textBytes)
        // URLs are read up to Redactor.maximumURLBytes (64 KiB): measured at that size.
        let urlBytes = Redactor.maximumURLBytes
        let query = "https://api.example.com/search?" + repeated("q=swift&token=S3CR3T&page=2&", toBytes: urlBytes - 40)
        let xml = "<items>" + repeated("<item id=\"1\"><name>Ann</name><password>S3CR3T</password></item>", toBytes: mebibyte) + "</items>"
        let graphQL = repeated("query Q { user(id: \"42\", limit: 10) { name friends(first: 5) { id } } } ", toBytes: mebibyte)
        let curlBytes = 50_000_000
        var binary = Data(count: curlBytes)
        binary.withUnsafeMutableBytes { bytes in for index in bytes.indices { bytes[index] = UInt8(truncatingIfNeeded: index &* 2_654_435_761 >> 13) } }
        let quoteHeavy = Data(repeated(#"{"note":"it's Ann's","n":1}"#, toBytes: curlBytes).utf8)
        return [
            curl("cURL command, 50 MB binary body", binary),
            curl("cURL command, 50 MB JSON body", JSONFixture.body(bytes: curlBytes)),
            curl("cURL command, 50 MB text, quote-heavy", quoteHeavy),
            body("JSON 1 KiB", JSONFixture.body(bytes: 1024), "application/json"),
            body("JSON 64 KiB", JSONFixture.body(bytes: 64 * 1024), "application/json"),
            body("JSON 1 MiB", JSONFixture.body(bytes: mebibyte), "application/json"),
            body("form 1 MiB", Data(form.utf8), "application/x-www-form-urlencoded"),
            body("form 1 MiB, one value", Data(("password=" + String(repeating: "a", count: mebibyte)).utf8), nil),
            body("multipart 1 MiB, 15k parts", Data(multipart.utf8), "multipart/form-data; boundary=\(boundary)"),
            body("GraphQL text 1 MiB", Data(graphQL.utf8), "application/graphql"),
            body("XML 1 MiB", Data(xml.utf8), "application/xml"),
            text("error text 64 KiB", prose),
            text("error text 64 KiB, JSON", repeated(#"{"error":"invalid_grant","token":"S3CR3T","n":1} "#, toBytes: textBytes)),
            text("error text 64 KiB, quotes", repeated(#""password":" "#, toBytes: textBytes)),
            url("URL 64 KiB query", query),
            url("URL 64 KiB, nested encoded URLs", "https://a.example/?next=" + repeated("https%3A%2F%2Fb.example%2F%3Fq%3D1%26", toBytes: urlBytes - 40)),
        ]
    }

    private static func repeated(_ unit: String, toBytes bytes: Int) -> String {
        String(repeating: unit, count: max(1, bytes / unit.utf8.count))
    }
}
