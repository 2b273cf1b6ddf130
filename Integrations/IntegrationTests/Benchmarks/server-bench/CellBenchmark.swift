import Dispatch
import Foundation

/// One cell of the matrix, a concurrency and a response size: a fresh client per variant,
/// each warmed up, then rounds that run every variant in turn (bare, httpcore, ..., bare,
/// httpcore, ...).
struct CellBenchmark {
    /// Concurrent callers.
    let concurrency: Int
    /// Response body size in bytes.
    let responseBytes: Int
    /// Requests per variant and round.
    let requestsPerRound: Int
    /// Requests each client makes before the first round: its connections opened, its code
    /// paths and the observers' first events done.
    let warmupRequests: Int
    /// Rounds of every variant.
    let rounds: Int
    /// The variants, bare first.
    let variants: [ClientVariant]

    /// `c16 64 B`, for progress lines.
    var label: String { "c\(concurrency) \(ResponseSize.label(responseBytes))" }

    /// Measures the cell against `server`; `progress` gets one line per round and variant.
    /// Throws when a client fails its warm-up.
    func run(server: ServerProcess, devSeeURL: URL, progress: (String) -> Void) async throws -> CellResult {
        let url = server.url(size: responseBytes)
        let clients = variants.map { VariantClient.make($0, url: url, devSeeURL: devSeeURL) }
        do {
            for client in clients {
                let outcome = await load(client, requests: warmupRequests)
                await client.settle()
                if outcome.failures > 0 {
                    throw ServerBenchError("\(client.variant.rawValue) failed its warm-up at \(label): \(outcome.firstFailure ?? "")")
                }
            }
        } catch {
            await shutdown(clients)
            throw error
        }
        var samples = Array(repeating: [RoundSample](), count: clients.count)
        var firstFailures = [String?](repeating: nil, count: clients.count)
        for round in 1...rounds {
            for (index, client) in clients.enumerated() {
                let (sample, failure) = await measureRound(client, server: server)
                samples[index].append(sample)
                firstFailures[index] = firstFailures[index] ?? failure
                progress(String(
                    format: "%@ round %d/%d %@: %.0f req/s, %.1f µs CPU/req, %.2f switches/req%@",
                    label, round, rounds, client.variant.rawValue, sample.requestsPerSecond, sample.cpuMicrosecondsPerRequest,
                    sample.contextSwitchesPerRequest,
                    sample.failures > 0 ? ", \(sample.failures) failed" : ""
                ))
            }
        }
        let summaries = clients.indices.map { index in
            VariantSummary(
                variant: clients[index].variant, samples: samples[index], bare: samples[0],
                droppedEvents: clients[index].droppedEvents, firstFailure: firstFailures[index]
            )
        }
        await shutdown(clients)
        return CellResult(
            concurrency: concurrency, responseBytes: responseBytes, requestsPerRound: requestsPerRound,
            warmupRequests: warmupRequests, rounds: rounds, variants: summaries
        )
    }

    /// One round of `client`: the requests, then the observers' drain, with the CPU time of
    /// this process, of the server and of the rest of the machine, and this process's
    /// allocations, around both.
    private func measureRound(_ client: VariantClient, server: ServerProcess) async -> (RoundSample, String?) {
        let machineBefore = ProcStat.machineBusyMicroseconds()
        let serverBefore = server.cpuMicroseconds()
        let cpuBefore = ProcessUsage.now()
        AllocationCounter.start()
        let start = DispatchTime.now().uptimeNanoseconds
        let outcome = await load(client, requests: requestsPerRound)
        let loaded = DispatchTime.now().uptimeNanoseconds
        await client.settle()
        let drained = DispatchTime.now().uptimeNanoseconds
        let allocations = AllocationCounter.stop()
        let cpu = ProcessUsage.now().since(cpuBefore)
        let serverCPU = server.cpuMicroseconds().flatMap { after in serverBefore.map { after - $0 } }
        let machineBusy = ProcStat.machineBusyMicroseconds().flatMap { after in machineBefore.map { after - $0 } }
        let otherCPU = machineBusy.flatMap { busy in serverCPU.map { max(0, busy - cpu.totalMicroseconds - $0) } }
        let sample = RoundSample(
            requests: requestsPerRound,
            failures: outcome.failures,
            seconds: Double(loaded - start) / 1e9,
            drainSeconds: Double(drained - loaded) / 1e9,
            cpuUserMicroseconds: cpu.userMicroseconds,
            cpuSystemMicroseconds: cpu.systemMicroseconds,
            contextSwitches: cpu.contextSwitches,
            allocations: allocations,
            serverCPUMicroseconds: serverCPU,
            otherCPUMicroseconds: otherCPU,
            cores: ProcessInfo.processInfo.activeProcessorCount
        )
        return (sample, outcome.firstFailure)
    }

    /// Makes `requests` requests through `client` from the cell's callers.
    private func load(_ client: VariantClient, requests: Int) async -> ClosedLoopLoad.Outcome {
        await ClosedLoopLoad.run(requests: requests, callers: concurrency, expectedBytes: responseBytes, perform: client.perform)
    }

    /// Shuts every client down, ignoring failures: the cell is over either way.
    private func shutdown(_ clients: [VariantClient]) async {
        for client in clients {
            try? await client.shutdown()
        }
    }
}
