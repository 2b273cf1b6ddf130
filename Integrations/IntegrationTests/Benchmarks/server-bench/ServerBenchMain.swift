import Foundation

/// `swift run -c release --package-path Integrations/IntegrationTests server-bench [--quick]
/// [options]`: the cost of HTTPCore on the server path, over AsyncHTTPClient, against bare
/// AsyncHTTPClient.
///
/// Every ``ClientVariant`` (bare AHC, bare AHC instrumented by hand, HTTPCore with no
/// observer, with observers, the production stack, and it with dev-see) calls the same SwiftNIO HTTP/1.1 server on loopback at 1, 16 and 64 concurrent
/// callers, for 64-byte and 64 KiB responses. Rounds alternate the variants (bare,
/// httpcore, ..., bare, httpcore, ...), so each variant's throughput is compared with bare's
/// in the same round; the report gives requests/s, that ratio, the client process's CPU time
/// per request, its context switches and allocations per request, as a table on standard
/// output and as JSON; then per cell the comparisons and targets of issue 38
/// (``CellComparison``, ``TargetCheck``).
///
/// Two processes, so the client's figures are the client's alone: the server runs in a child
/// (this executable again, `--serve`, see ``BenchmarkServer``), and the CPU time
/// (`getrusage`) and allocations are this process's.
///
/// Allocations are counted with ordo-one's malloc-interposer, the counter that
/// package-benchmark (ordo-one/package-benchmark) uses for its `mallocCount*` metrics.
/// package-benchmark itself is not used: its runner measures one benchmark at a time, each in
/// a run of its own, so it cannot give side-by-side ratios of variants alternating within one
/// run on a shared, noisy machine, which is what the targets are about. See
/// ``AllocationCounter`` for how the interposer is loaded.
@main
struct ServerBenchMain {
    /// Runs the server child (`--serve`) or the benchmark; exits 2 on a bad command line, 1
    /// when something could not run or a request failed, else 0 whatever the targets say.
    static func main() async {
        let arguments = Array(CommandLine.arguments.dropFirst())
        if arguments == [BenchmarkServer.flag] {
            exit(await BenchmarkServer.serveUntilInputCloses())
        }
        let options: ServerBenchOptions
        do {
            options = try ServerBenchOptions(arguments: arguments)
        } catch {
            FileHandle.standardError.write(Data("\(error)\n".utf8))
            exit(arguments.contains { $0 == "-h" || $0 == "--help" } ? 0 : 2)
        }
        AllocationCounter.preloadIfNeeded()
        exit(await ServerBenchRun(options: options).run())
    }
}
