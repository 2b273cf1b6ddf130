/// The server path's targets, each checked in every cell from one run: issue 38's, as issue
/// 57's decision left them (the production stack is held to the same work written by hand,
/// not to bare AHC or to a hand-written row that does less).
enum ServerBenchTarget: String, CaseIterable, Encodable, Sendable {
    /// HTTPCore with no observer at least 0.97× bare, or within the noise band that
    /// `bare-again` measures in the same cell of the same run.
    case noObserverToBare = "no-observer/bare"
    /// The production stack at least 0.97× `hand-written-production`: the same work by hand.
    case productionToSameWorkByHand = "production/hand-written-production"
    /// dev-see adds at most 3% to the production stack (throughput lost).
    case devSeeAddedCost = "dev-see added cost"

    /// The target's limit: a lowest ratio, or for ``devSeeAddedCost`` a highest cost.
    var limit: Double {
        switch self {
        case .noObserverToBare, .productionToSameWorkByHand: 0.97
        case .devSeeAddedCost: 0.03
        }
    }

    /// Whether the measured figure must stay at or below ``limit`` (a cost) rather than reach it.
    var isCeiling: Bool { self == .devSeeAddedCost }

    /// The figure the target holds to, from one cell's comparisons.
    func measured(in comparison: CellComparison) -> Double? {
        switch self {
        case .noObserverToBare: comparison.noObserverToBare
        case .productionToSameWorkByHand: comparison.productionToSameWorkByHand
        case .devSeeAddedCost: comparison.devSeeAddedCost
        }
    }

    /// The variants the figure needs, for the line that says how to measure it.
    var variants: [ClientVariant] {
        switch self {
        case .noObserverToBare: [.bareAgain, .httpcore]
        case .productionToSameWorkByHand: [.handWrittenProduction, .production]
        case .devSeeAddedCost: [.production, .full]
        }
    }
}
