import Dispatch
import Foundation
import HTTPCoreLoopback

/// One run of the benchmark: the server child started, every selected cell measured, the
/// report printed and written.
struct ServerBenchRun {
    /// What to measure.
    let options: ServerBenchOptions

    /// Requests per variant and round of a cell, unless `--requests` says otherwise: 20,000
    /// at 16 callers and 64 bytes, as in the issue, and about as many seconds' worth in the
    /// other cells: a run of every cell (5 rounds) takes about 4 minutes on a 2-core machine
    /// with the six variants the targets need (`--variants
    /// bare,bare-again,hand-written-production,httpcore,production,full`), about twice that with all of
    /// them, more while the machine is busy with something else. `--quick` makes a fifth of
    /// them.
    static func requestsPerRound(concurrency: Int, responseBytes: Int, quick: Bool) -> Int {
        let small = responseBytes <= ResponseSize.small
        let requests: Int = switch concurrency {
        case ..<4: small ? 10_000 : 5_000
        default: small ? 20_000 : 10_000
        }
        return quick ? requests / 5 : requests
    }

    /// Requests each client makes before the first round: enough to open a connection per
    /// caller and run every code path a few times.
    static func warmupRequests(concurrency: Int, requestsPerRound: Int) -> Int {
        max(concurrency * 10, requestsPerRound / 10)
    }

    /// Runs every cell; returns 0 when all ran without a failed request, else 1.
    func run() async -> Int32 {
        let start = DispatchTime.now().uptimeNanoseconds
        var info = RunInfo.start(quick: options.quick)
        let rounds = options.rounds ?? (options.quick ? 1 : 5)
        progress("allocations: \(info.allocationCounting)")
        let server: ServerProcess
        let devSeeURL: URL
        do {
            server = try ServerProcess()
            devSeeURL = try Self.unreachableURL()
        } catch {
            output("FAILED: \(error)")
            return 1
        }
        defer { server.stop() }
        let machineBefore = ProcStat.machineBusyMicroseconds()
        let serverBefore = server.cpuMicroseconds()
        let clientBefore = ProcessUsage.now()
        var cells: [CellResult] = []
        var failed = false
        for concurrency in options.concurrencies {
            for size in options.sizes {
                let requests = options.requestsPerRound
                    ?? Self.requestsPerRound(concurrency: concurrency, responseBytes: size, quick: options.quick)
                let cell = CellBenchmark(
                    concurrency: concurrency, responseBytes: size, requestsPerRound: requests,
                    warmupRequests: Self.warmupRequests(concurrency: concurrency, requestsPerRound: requests),
                    rounds: rounds, variants: options.variants
                )
                do {
                    let result = try await cell.run(server: server, devSeeURL: devSeeURL, progress: progress)
                    failed = failed || result.variants.contains { $0.failures > 0 }
                    cells.append(result)
                } catch {
                    output("c\(concurrency) \(ResponseSize.label(size)): FAILED: \(error)")
                    failed = true
                }
            }
        }
        info.loadAverageAtEnd = RunInfo.loadAverage()
        info.durationSeconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        if let machineBefore, let machineAfter = ProcStat.machineBusyMicroseconds(),
           let serverBefore, let serverAfter = server.cpuMicroseconds() {
            let ours = ProcessUsage.now().since(clientBefore).totalMicroseconds + serverAfter - serverBefore
            let capacity = info.durationSeconds * 1e6 * Double(max(info.cores, 1))
            info.otherCPUShare = max(0, machineAfter - machineBefore - ours) / capacity
        }
        let report = ServerBenchReport(run: info, cells: cells)
        output(report.markdown)
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

    /// The URL of a loopback port nothing listens on (a server's, once stopped): the full
    /// variant's dev-see server, down.
    static func unreachableURL() throws -> URL {
        let server = try LoopbackHTTPServer()
        let url = server.baseURL
        server.stop()
        return url
    }

    /// A line to standard output, written at once so it is not reordered with progress.
    private func output(_ text: String) {
        FileHandle.standardOutput.write(Data((text + "\n").utf8))
    }

    /// A progress line to standard error.
    private func progress(_ text: String) {
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }
}
