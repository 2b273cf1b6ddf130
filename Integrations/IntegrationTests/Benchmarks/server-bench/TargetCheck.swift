/// One of the server path's targets (``ServerBenchTarget``) checked in one cell, from this run alone.
///
/// Reported as PASS, MISS or n/a; a MISS does not change the exit status, which says only
/// whether everything ran (``ServerBenchMain``).
struct TargetCheck: Encodable, Sendable {
    /// The target.
    let target: ServerBenchTarget
    /// The cell's concurrency.
    let concurrency: Int
    /// The cell's response size in bytes.
    let responseBytes: Int
    /// The measured figure, `nil` when this run did not measure a variant it needs.
    let measured: Double?
    /// For ``ServerBenchTarget/noObserverToBare``, the cell's `bare-again` noise band (see
    /// ``CellComparison/noiseBand``): within it also passes. `nil` for the other targets.
    let noiseBand: Double?

    /// Every target in every cell, in the cells' order.
    static func checks(in comparisons: [CellComparison]) -> [TargetCheck] {
        comparisons.flatMap { comparison in
            ServerBenchTarget.allCases.map { target in
                TargetCheck(
                    target: target, concurrency: comparison.concurrency, responseBytes: comparison.responseBytes,
                    measured: target.measured(in: comparison),
                    noiseBand: target == .noObserverToBare ? comparison.noiseBand : nil
                )
            }
        }
    }

    /// The figure that passes: the target's limit, or for the no-observer target the noise
    /// band's lower edge when that is lower.
    var threshold: Double {
        guard let noiseBand else { return target.limit }
        return min(target.limit, 1 - noiseBand)
    }

    /// Whether the target is met, `nil` when not measured.
    var passed: Bool? {
        measured.map { target.isCeiling ? $0 <= threshold : $0 >= threshold }
    }

    /// `PASS`, `MISS`, or `n/a` when not measured.
    var verdict: String {
        passed.map { $0 ? "PASS" : "MISS" } ?? "n/a"
    }

    /// `PASS production/hand-written-production at c16 64 B: 0.982x (target at least 0.97x)`.
    var line: String {
        let cell = "c\(concurrency) \(ResponseSize.label(responseBytes))"
        let limit = target.isCeiling
            ? String(format: "at most %.0f%%", target.limit * 100)
            : String(format: "at least %.2fx", target.limit)
        let band = noiseBand.map { String(format: ", or within bare-again's noise band 1 ± %.3f", $0) } ?? ""
        guard let measured else {
            let variants = target.variants.map(\.rawValue).joined(separator: ",")
            return "n/a \(target.rawValue) at \(cell): not measured (run --variants \(variants)) (target \(limit)\(band))"
        }
        let figure = target.isCeiling ? String(format: "%+.1f%%", measured * 100) : String(format: "%.3fx", measured)
        return "\(verdict) \(target.rawValue) at \(cell): \(figure) (target \(limit)\(band))"
    }
}

extension TargetCheck {
    /// The JSON keys: the stored figures, the threshold applied and the verdict.
    private enum CodingKeys: String, CodingKey {
        case target, concurrency, responseBytes, measured, noiseBand, limit, threshold, verdict
    }

    /// The stored figures, the threshold applied and the verdict.
    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(target, forKey: .target)
        try container.encode(concurrency, forKey: .concurrency)
        try container.encode(responseBytes, forKey: .responseBytes)
        try container.encode(measured, forKey: .measured)
        try container.encode(noiseBand, forKey: .noiseBand)
        try container.encode(target.limit, forKey: .limit)
        try container.encode(threshold, forKey: .threshold)
        try container.encode(verdict, forKey: .verdict)
    }
}
