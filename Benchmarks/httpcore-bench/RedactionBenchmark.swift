import Foundation
import HTTPCore

/// Section 5: throughput of JSON body masking at `.standard` on realistic bodies.
struct RedactionBenchmark {
    let minimumSeconds: Double
    let sizes = [("1 KiB", 1024), ("64 KiB", 64 * 1024), ("1 MiB", 1024 * 1024)]

    init(quick: Bool) {
        minimumSeconds = quick ? 0.2 : 0.5
    }

    func run() -> SectionReport {
        var report = SectionReport(key: "redaction", title: "5. Redaction: Redactor.standard.redactedBody, application/json", columns: [
            Column(header: "Body", key: "body"),
            Column(header: "Bytes", key: "bytes"),
            Column(header: "Masked values", key: "masked_values"),
            Column(header: "Iterations", key: "iterations"),
            Column(header: "Seconds", key: "seconds"),
            Column(header: "MB/s", key: "megabytes_per_second"),
        ])
        let redactor = Redactor.standard
        for (label, size) in sizes {
            let body = JSONFixture.body(bytes: size)
            let sample = redactor.redactedBody(body, contentType: "application/json")
            let masked = String(decoding: sample, as: UTF8.self).components(separatedBy: Redactor.mask).count - 1
            var iterations = 0
            let start = nowNanoseconds()
            repeat {
                blackHole(redactor.redactedBody(body, contentType: "application/json"))
                iterations += 1
            } while secondsSince(start) < minimumSeconds
            let seconds = secondsSince(start)
            report.rows.append([
                .text(label), .integer(body.count), .integer(masked), .integer(iterations),
                .number(seconds, decimals: 2), .number(Double(body.count * iterations) / seconds / 1e6, decimals: 1),
            ])
        }
        report.notes = [
            "Bodies: a page of user objects with nested objects and arrays; password, api_key and token values are masked.",
            "MB = 10^6 bytes of input; each size repeated for at least \(minimumSeconds) s.",
        ]
        return report
    }
}
