import Foundation

/// `swift run -c release httpcore-bench`: measures the stack against bare URLSession, prints
/// a table per section and a PASS/MISS summary, and writes the same figures as JSON.
@main
struct BenchmarkMain {
    static func main() async {
        let options: BenchmarkOptions
        do {
            options = try BenchmarkOptions(arguments: Array(CommandLine.arguments.dropFirst()))
        } catch {
            FileHandle.standardError.write(Data("\(error)\n".utf8))
            exit(2)
        }
        if let child = options.childSection {
            if child == BenchmarkSection.memory.rawValue { exit(await MemoryBenchmark.runChild()) }
            let streamingPrefix = BenchmarkSection.streaming.rawValue + ":"
            if child.hasPrefix(streamingPrefix) { exit(await StreamingBenchmark.runChild(child.dropFirst(streamingPrefix.count))) }
            FileHandle.standardError.write(Data("unknown section \(child)\n".utf8))
            exit(2)
        }
        exit(await run(options))
    }

    /// Runs the selected sections, prints and writes the report; returns the exit status:
    /// 0 when every section ran (whatever the targets say), 1 otherwise.
    static func run(_ options: BenchmarkOptions) async -> Int32 {
        let machine = MachineInfo.current(mode: options.quick ? "quick" : "full")
        output("# httpcore-bench (\(machine.mode) run, \(machine.configuration) build)\n")
        let start = nowNanoseconds()
        var sections: [String: SectionReport] = [:]
        var targets: [TargetCheck] = []
        var failed = false
        for section in options.sections {
            FileHandle.standardError.write(Data("running \(section.rawValue)...\n".utf8))
            do {
                let report = try await section.run(quick: options.quick, rowFilter: options.rowFilter)
                output(report.rendered + "\n")
                sections[report.key] = report
                targets += report.targets
            } catch {
                output("## \(section.rawValue): FAILED: \(error)\n")
                failed = true
            }
        }
        let report = BenchmarkReport(machine: machine, durationSeconds: secondsSince(start), sections: sections, targets: targets)
        output(report.renderedSummary)
        do {
            let url = URL(fileURLWithPath: options.jsonPath)
            try report.write(to: url)
            output("\nJSON written to \(url.path)")
        } catch {
            output("\nCould not write \(options.jsonPath): \(error)")
            failed = true
        }
        return failed ? 1 : 0
    }

    /// Writes a line to standard output at once, so it is not reordered with the progress
    /// lines on standard error.
    static func output(_ text: String) {
        FileHandle.standardOutput.write(Data((text + "\n").utf8))
    }
}
