/// The comparisons issue 38 asks of every cell, each a median over the cell's rounds of a
/// ratio taken within one round, so the two variants compared ran minutes apart at most.
///
/// A figure is `nil` when the run did not measure a variant it needs (`--variants`).
struct CellComparison: Encodable, Sendable {
    /// Concurrent callers.
    let concurrency: Int
    /// Response body size in bytes.
    let responseBytes: Int
    /// `bare-again`'s throughput over bare's, per round: what noise alone makes of a ratio
    /// in this cell of this run (an A/A comparison).
    let bareAgainRatios: [Double]?
    /// HTTPCore with no observer over bare.
    let noObserverToBare: Double?
    /// `hand-written` over bare: what instrumenting by hand costs.
    let handWrittenToBare: Double?
    /// The production stack over bare.
    let productionToBare: Double?
    /// The production stack over `hand-written`: HTTPCore's observability against writing it
    /// by hand (1 = as fast).
    let productionToHandWritten: Double?
    /// The production stack over `hand-written-production`, the same work written by hand:
    /// what HTTPCore's way of doing it costs, apart from what it does more than `hand-written`.
    let productionToSameWorkByHand: Double?
    /// What adding dev-see to the production stack costs in throughput: 1 − `full` over
    /// `production` (0.03 = 3% fewer requests per second).
    let devSeeAddedCost: Double?
    /// What adding dev-see costs in the client's CPU time per request: `full` over
    /// `production`, − 1.
    let devSeeAddedCPU: Double?
    /// How far from 1 noise alone moved a ratio in this cell: `bare-again`'s median ratio to
    /// bare, either way. The other ratios are medians over the same rounds, so one within
    /// 1 ± this cannot be told from bare in this run. (A single round moves much further: the
    /// rounds' own ratios are in the JSON.)
    let noiseBand: Double?

    /// The comparisons of `cell`.
    init(_ cell: CellResult) {
        concurrency = cell.concurrency
        responseBytes = cell.responseBytes
        func ratio(_ variant: ClientVariant, to reference: ClientVariant, of figure: (RoundSample) -> Double) -> [Double]? {
            guard let samples = cell.summary(of: variant)?.rounds, let references = cell.summary(of: reference)?.rounds,
                  !samples.isEmpty
            else { return nil }
            return zip(samples, references).map { figure($0) / max(figure($1), 1e-9) }
        }
        func throughput(_ variant: ClientVariant, to reference: ClientVariant) -> Double? {
            ratio(variant, to: reference, of: \.requestsPerSecond).map(VariantSummary.median)
        }
        bareAgainRatios = ratio(.bareAgain, to: .bare, of: \.requestsPerSecond)
        noiseBand = bareAgainRatios.map { abs(1 - VariantSummary.median($0)) }
        noObserverToBare = throughput(.httpcore, to: .bare)
        handWrittenToBare = throughput(.handWritten, to: .bare)
        productionToBare = throughput(.production, to: .bare)
        productionToHandWritten = throughput(.production, to: .handWritten)
        productionToSameWorkByHand = throughput(.production, to: .handWrittenProduction)
        devSeeAddedCost = throughput(.full, to: .production).map { 1 - $0 }
        devSeeAddedCPU = ratio(.full, to: .production, of: \.cpuMicrosecondsPerRequest).map { VariantSummary.median($0) - 1 }
    }


    /// `c16 64 B`.
    var label: String { "c\(concurrency) \(ResponseSize.label(responseBytes))" }
}
