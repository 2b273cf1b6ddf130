import Foundation

/// One value of a table: text, or a number printed with a fixed number of decimals and
/// written to JSON as a number.
enum Cell: Sendable, Encodable {
    case text(String)
    case number(Double, decimals: Int)

    /// An integer cell.
    static func integer(_ value: Int) -> Cell { .number(Double(value), decimals: 0) }

    /// The cell as printed in the table.
    var rendered: String {
        switch self {
        case .text(let text): text
        case .number(let value, let decimals): String(format: "%.\(decimals)f", value)
        }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .text(let text): try container.encode(text)
        case .number(let value, let decimals):
            // Rounded as printed, so the JSON holds the same figures as the table.
            let scale = pow(10, Double(decimals))
            try container.encode((value * scale).rounded() / scale)
        }
    }
}

/// A column of a table: the header printed and the key used in the JSON output.
struct Column: Sendable {
    let header: String
    let key: String
}

/// The result of one benchmark section: a table, footnotes and the targets it checks.
struct SectionReport: Sendable {
    let key: String
    let title: String
    let columns: [Column]
    var rows: [[Cell]] = []
    var notes: [String] = []
    var targets: [TargetCheck] = []

    /// The table as aligned, Markdown-like text followed by its notes.
    var rendered: String {
        let texts = [columns.map(\.header)] + rows.map { $0.map(\.rendered) }
        let widths = columns.indices.map { index in texts.map { $0.indices.contains(index) ? $0[index].count : 0 }.max() ?? 0 }
        // Numeric columns align right, text columns left.
        let isNumeric = columns.indices.map { index in
            rows.contains { row in
                guard row.indices.contains(index), case .number = row[index] else { return false }
                return true
            }
        }
        func line(_ cells: [String]) -> String {
            let padded = cells.enumerated().map { index, text in
                let pad = String(repeating: " ", count: max(0, widths[index] - text.count))
                return isNumeric[index] ? pad + text : text + pad
            }
            return "| " + padded.joined(separator: " | ") + " |"
        }
        var lines = ["## \(title)", "", line(texts[0])]
        lines.append("|" + widths.enumerated().map { index, width in
            String(repeating: "-", count: width + 1) + (isNumeric[index] ? ":" : "-")
        }.joined(separator: "|") + "|")
        lines += texts.dropFirst().map(line)
        lines += notes.map { "  " + $0 }
        return lines.joined(separator: "\n")
    }
}

extension SectionReport: Encodable {
    private enum CodingKeys: String, CodingKey { case title, rows, notes }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(title, forKey: .title)
        let objects = rows.map { row in
            Dictionary(zip(columns.map(\.key), row), uniquingKeysWith: { first, _ in first })
        }
        try container.encode(objects, forKey: .rows)
        try container.encode(notes, forKey: .notes)
    }
}

/// One target checked against a measured figure; reported as PASS or MISS, never asserted.
struct TargetCheck: Sendable, Encodable {
    /// How the measured value must compare to the limit.
    enum Comparison: String, Sendable, Encodable {
        case atMost = "<="
        case below = "<"
        case atLeast = ">="
    }

    let name: String
    let measured: Double
    let comparison: Comparison
    let limit: Double
    let unit: String

    /// Whether the measured value meets the target.
    var passed: Bool {
        switch comparison {
        case .atMost: measured <= limit
        case .below: measured < limit
        case .atLeast: measured >= limit
        }
    }

    private enum CodingKeys: String, CodingKey { case name, measured, comparison, limit, unit, passed }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(name, forKey: .name)
        try container.encode((measured * 1000).rounded() / 1000, forKey: .measured)
        try container.encode(comparison, forKey: .comparison)
        try container.encode(limit, forKey: .limit)
        try container.encode(unit, forKey: .unit)
        try container.encode(passed, forKey: .passed)
    }
}

/// The machine and build the figures were measured on.
struct MachineInfo: Sendable, Encodable {
    let cores: Int
    let operatingSystem: String
    let swiftVersion: String
    let configuration: String
    let mode: String
    /// The 1-minute load average when the run started; above the core count, other work
    /// competed with the benchmark and ratios are noisier.
    let loadAverage: Double

    /// The current machine, for a run in `mode` (`full` or `quick`).
    static func current(mode: String) -> MachineInfo {
        #if DEBUG
        let configuration = "debug (figures are not representative; use -c release)"
        #else
        let configuration = "release"
        #endif
        return MachineInfo(
            cores: ProcessInfo.processInfo.activeProcessorCount,
            operatingSystem: ProcessInfo.processInfo.operatingSystemVersionString,
            swiftVersion: compilerVersion,
            configuration: configuration,
            mode: mode,
            loadAverage: oneMinuteLoadAverage
        )
    }

    private static var oneMinuteLoadAverage: Double {
        var loads = [0.0, 0.0, 0.0]
        return getloadavg(&loads, 3) > 0 ? (loads[0] * 100).rounded() / 100 : 0
    }

    /// The compiler's language version, known at compile time only as a lower bound.
    private static var compilerVersion: String {
        #if compiler(>=6.3)
        "6.3 or later"
        #elseif compiler(>=6.2)
        "6.2"
        #elseif compiler(>=6.1)
        "6.1"
        #else
        "6.0"
        #endif
    }
}

/// Everything one run measured, as written to the JSON file.
struct BenchmarkReport: Sendable, Encodable {
    let machine: MachineInfo
    let durationSeconds: Double
    let sections: [String: SectionReport]
    let targets: [TargetCheck]

    /// The summary block: each target with PASS or MISS, then the machine.
    var renderedSummary: String {
        var lines = ["## Summary", ""]
        let width = targets.map(\.name.count).max() ?? 0
        for target in targets {
            let name = target.name.padding(toLength: width, withPad: " ", startingAt: 0)
            let measured = String(format: "%.3f", target.measured)
            let limit = "\(target.comparison.rawValue) \(Self.trimmed(target.limit)) \(target.unit)"
            lines.append("\(target.passed ? "PASS" : "MISS")  \(name)  \(measured) \(target.unit)  (target \(limit))")
        }
        lines.append("")
        lines.append("Machine: \(machine.cores) cores, \(machine.operatingSystem), load average \(machine.loadAverage) at start")
        lines.append("Swift \(machine.swiftVersion), \(machine.configuration) build, \(machine.mode) run, "
            + String(format: "%.1f s", durationSeconds))
        return lines.joined(separator: "\n")
    }

    /// Writes the report as pretty-printed JSON with sorted keys.
    func write(to url: URL) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try encoder.encode(self).write(to: url, options: .atomic)
    }

    private static func trimmed(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(value)
    }
}
