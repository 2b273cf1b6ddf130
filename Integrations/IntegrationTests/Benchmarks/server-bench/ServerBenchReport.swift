import Foundation

/// Every figure of a run: printed as a Markdown table with notes and the targets' PASS/MISS
/// lines, and written as JSON with each round's raw figures.
struct ServerBenchReport: Encodable, Sendable {
    /// When and how the run was made.
    let run: RunInfo
    /// The cells, in the order they ran.
    let cells: [CellResult]
    /// Each cell's comparisons, in the same order.
    let comparisons: [CellComparison]
    /// Issue 38's targets in every cell.
    let targets: [TargetCheck]

    /// The report of `cells`: their comparisons and targets derived from them.
    init(run: RunInfo, cells: [CellResult]) {
        self.run = run
        self.cells = cells
        comparisons = cells.map(CellComparison.init)
        targets = TargetCheck.checks(in: comparisons)
    }

    /// The table, its notes and the target lines.
    var markdown: String {
        var lines = [
            "# server-bench (\(run.mode) run, \(run.configuration) build): HTTPCore over AsyncHTTPClient against bare AHC",
            "",
            "| Callers | Body | Variant | req/s | vs bare | CPU µs/req | CPU vs bare | Switches/req | Allocs/req | Server µs/req | Others % | Drain ms | Dropped | Failed |",
            "|--:|--:|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|",
        ]
        for cell in cells {
            for summary in cell.variants {
                let cells = [
                    "\(cell.concurrency)", ResponseSize.label(cell.responseBytes), summary.variant.rawValue,
                    String(format: "%.0f", summary.requestsPerSecond),
                    String(format: "%.3f", summary.throughputRatioToBare),
                    String(format: "%.1f", summary.cpuMicrosecondsPerRequest),
                    String(format: "%.2f", summary.cpuRatioToBare),
                    String(format: "%.2f", summary.contextSwitchesPerRequest),
                    summary.allocationsPerRequest.map { String(format: "%.1f", $0) } ?? "n/a",
                    summary.serverCPUMicrosecondsPerRequest.map { String(format: "%.1f", $0) } ?? "n/a",
                    summary.maximumOtherCPUShare.map { String(format: "%.0f", $0 * 100) } ?? "n/a",
                    String(format: "%.1f", summary.drainMilliseconds),
                    "\(summary.droppedEvents)", "\(summary.failures)",
                ]
                lines.append("| " + cells.joined(separator: " | ") + " |")
            }
        }
        lines.append("")
        lines += comparisonTable
        lines.append("")
        lines += notes.map { "- " + $0 }
        lines.append("")
        lines += targets.map(\.line)
        return lines.joined(separator: "\n")
    }

    /// The variants whose allocations and context switches the comparison table repeats.
    private static let comparedVariants: [ClientVariant] = [.bare, .handWritten, .httpcore, .production, .full]

    /// One row per cell: the ratios the targets hold to, and what a request costs in
    /// allocations and context switches in the variants they compare.
    private var comparisonTable: [String] {
        let perRequest = Self.comparedVariants.map(\.rawValue).joined(separator: " / ")
        var lines = [
            "| Callers | Body | no observer / bare | bare-again band | hand-written / bare | production / bare | production / hand-written "
                + "| production / same work by hand | dev-see adds (req/s) | dev-see adds (CPU) | Allocs/req: \(perRequest) | Switches/req: \(perRequest) |",
            "|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|",
        ]
        for (cell, comparison) in zip(cells, comparisons) {
            let summaries = Self.comparedVariants.map { cell.summary(of: $0) }
            let row = [
                "\(cell.concurrency)", ResponseSize.label(cell.responseBytes),
                Self.format(comparison.noObserverToBare, "%.3f"),
                comparison.noiseBand.map { String(format: "1 ± %.3f", $0) } ?? "n/a",
                Self.format(comparison.handWrittenToBare, "%.3f"),
                Self.format(comparison.productionToBare, "%.3f"),
                Self.format(comparison.productionToHandWritten, "%.3f"),
                Self.format(comparison.productionToSameWorkByHand, "%.3f"),
                Self.format(comparison.devSeeAddedCost.map { $0 * 100 }, "%+.1f%%"),
                Self.format(comparison.devSeeAddedCPU.map { $0 * 100 }, "%+.1f%%"),
                summaries.map { Self.format($0?.allocationsPerRequest, "%.1f") }.joined(separator: " / "),
                summaries.map { Self.format($0?.contextSwitchesPerRequest, "%.2f") }.joined(separator: " / "),
            ]
            lines.append("| " + row.joined(separator: " | ") + " |")
        }
        return lines
    }

    /// `value` formatted, `n/a` when unknown.
    private static func format(_ value: Double?, _ format: String) -> String {
        value.map { String(format: format, $0) } ?? "n/a"
    }

    /// What the columns mean and how the figures were made.
    private var notes: [String] {
        var notes = ClientVariant.allCases.map { "\($0.rawValue): \($0.summary)." }
        let sizes = cells.map { "c\($0.concurrency) \(ResponseSize.label($0.responseBytes)): \($0.requestsPerRound)" }
        notes.append(
            "Each cell: a fresh AHC client per variant (connection pool soft limit \(VariantClient.connectionsPerHost)), warmed up, then "
                + "\(cells.first?.rounds ?? 0) round(s) alternating the variants; requests per variant and round: "
                + sizes.joined(separator: ", ") + "."
        )
        notes.append(
            "req/s: median over rounds, wall time to the last response. vs bare: median over rounds of the round's "
                + "throughput / bare's in the same round (1.000 = as fast). CPU µs/req: the client process's getrusage "
                + "user+sys over the round and its drain / requests; CPU vs bare likewise per round. "
                + "Switches/req: the client process's context switches (getrusage, voluntary and involuntary) / requests."
        )
        notes.append(
            "Allocs/req: malloc calls over the round and its drain / requests, every thread of the client process, "
                + "counted by \(run.allocationCounting). Drain ms: HTTPEventDispatcher.flush() after the last response "
                + "(observers catching up). Dropped: logs the dev-see logger dropped in the cell (its buffer full)."
        )
        notes.append(
            "Second table, per cell: each ratio is the median over rounds of one variant's throughput / the other's in the "
                + "same round. production / same work by hand: over hand-written-production, which does production's work by hand. bare-again band: 1 ± how far bare-again / bare (median over the same rounds) is from 1, what "
                + "noise alone does to a median ratio here. dev-see adds: 1 − full / production in req/s, and full / production − 1 "
                + "in CPU µs/req. Allocs/req and Switches/req repeat the first table's, in the order named."
        )
        notes.append(
            "Targets (issue 38, as issue 57 decided), each cell from this run alone: no observer ≥ 0.97× bare or within the "
                + "bare-again band; production ≥ 0.97× hand-written-production (the same work by hand); dev-see adds ≤ 3%. "
                + "A MISS does not change the exit status."
        )
        notes.append(
            "Server µs/req: the server child's CPU time per request (/proc, 10 ms ticks). Others %: the largest share "
                + "of the machine's CPU that other processes used in one of the variant's rounds (/proc/stat); "
                + "above a few percent something else ran alongside. Over the whole run: "
                + (run.otherCPUShare.map { String(format: "%.0f%%", $0 * 100) } ?? "n/a") + "."
        )
        notes.append(
            "Server: a SwiftNIO HTTP/1.1 keep-alive server with one event loop thread in a child process, on loopback. "
                + "\(run.cores) cores; 1-minute load average (the benchmark's own threads included) "
                + "\(Self.format(run.loadAverageAtStart)) at start, \(Self.format(run.loadAverageAtEnd)) at end; "
                + "\(String(format: "%.0f", run.durationSeconds)) s in all."
        )
        return notes
    }

    /// A load average with two decimals, `n/a` when unknown.
    private static func format(_ load: Double?) -> String {
        load.map { String(format: "%.2f", $0) } ?? "n/a"
    }

    /// Writes the report as pretty-printed JSON to `url`.
    func write(to url: URL) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try encoder.encode(self).write(to: url)
    }
}
