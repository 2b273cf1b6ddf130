/// One cell's setup and every variant's summary.
struct CellResult: Encodable, Sendable {
    /// Concurrent callers.
    let concurrency: Int
    /// Response body size in bytes.
    let responseBytes: Int
    /// Requests per variant and round.
    let requestsPerRound: Int
    /// Requests each client made before the first round.
    let warmupRequests: Int
    /// Rounds of every variant.
    let rounds: Int
    /// The variants, bare first.
    let variants: [VariantSummary]

    /// The summary of `variant`, when it ran.
    func summary(of variant: ClientVariant) -> VariantSummary? {
        variants.first { $0.variant == variant }
    }
}
