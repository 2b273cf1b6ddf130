/// Issue 38's targets for the server path, each checked in every cell from one run.
enum ServerBenchTarget: String, CaseIterable, Encodable, Sendable {
    /// HTTPCore with no observer at least 0.97× bare, or within the noise band that
    /// `bare-again` measures in the same cell of the same run.
    case noObserverToBare = "no-observer/bare"
    /// The production stack at least 0.97× the `hand-written` row.
    case productionToHandWritten = "production/hand-written"
    /// The production stack at least 0.90× bare.
    case productionToBare = "production/bare"
    /// dev-see adds at most 3% to the production stack (throughput lost).
    case devSeeAddedCost = "dev-see added cost"

    /// The target's limit: a lowest ratio, or for ``devSeeAddedCost`` a highest cost.
    var limit: Double {
        switch self {
        case .noObserverToBare, .productionToHandWritten: 0.97
        case .productionToBare: 0.90
        case .devSeeAddedCost: 0.03
        }
    }

    /// Whether the measured figure must stay at or below ``limit`` (a cost) rather than reach it.
    var isCeiling: Bool { self == .devSeeAddedCost }

    /// The figure the target holds to, from one cell's comparisons.
    func measured(in comparison: CellComparison) -> Double? {
        switch self {
        case .noObserverToBare: comparison.noObserverToBare
        case .productionToHandWritten: comparison.productionToHandWritten
        case .productionToBare: comparison.productionToBare
        case .devSeeAddedCost: comparison.devSeeAddedCost
        }
    }

    /// The variants the figure needs, for the line that says how to measure it.
    var variants: [ClientVariant] {
        switch self {
        case .noObserverToBare: [.bareAgain, .httpcore]
        case .productionToHandWritten: [.handWritten, .production]
        case .productionToBare: [.production]
        case .devSeeAddedCost: [.production, .full]
        }
    }
}
