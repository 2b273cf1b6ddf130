/// One of the issue's targets: a variant's throughput ratio to bare in the c16, 64-byte cell.
struct TargetCheck: Encodable, Sendable {
    /// The variant held to the target.
    let variant: ClientVariant
    /// The cell's concurrency.
    let concurrency: Int
    /// The cell's response size in bytes.
    let responseBytes: Int
    /// The lowest throughput ratio to bare that passes.
    let minimumRatio: Double
    /// The measured ratio, `nil` when this run did not measure the cell or the variant.
    let measuredRatio: Double?

    /// The targets: no observer at least 0.97x bare, the full stack at least 0.90x.
    static func checks(in cells: [CellResult]) -> [TargetCheck] {
        let cell = cells.first { $0.concurrency == 16 && $0.responseBytes == ResponseSize.small }
        return [(ClientVariant.httpcore, 0.97), (.full, 0.90)].map { variant, minimum in
            TargetCheck(
                variant: variant, concurrency: 16, responseBytes: ResponseSize.small, minimumRatio: minimum,
                measuredRatio: cell?.summary(of: variant)?.throughputRatioToBare
            )
        }
    }

    /// `PASS`, `MISS`, or `n/a` when not measured.
    var verdict: String {
        guard let measuredRatio else { return "n/a" }
        return measuredRatio >= minimumRatio ? "PASS" : "MISS"
    }

    /// `PASS httpcore vs bare at c16 64 B: 0.981x (target at least 0.97x)`.
    var line: String {
        let cell = "c\(concurrency) \(ResponseSize.label(responseBytes))"
        let measured = measuredRatio.map { String(format: "%.3fx", $0) }
            ?? "not measured (run --concurrency \(concurrency) --size \(responseBytes) with \(variant.rawValue))"
        return "\(verdict) \(variant.rawValue) vs bare throughput at \(cell): \(measured) (target at least \(String(format: "%.2fx", minimumRatio)))"
    }
}

extension TargetCheck {
    /// The JSON keys: the stored figures and the verdict.
    private enum CodingKeys: String, CodingKey {
        case variant, concurrency, responseBytes, minimumRatio, measuredRatio, verdict
    }

    /// The stored figures and the verdict.
    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(variant, forKey: .variant)
        try container.encode(concurrency, forKey: .concurrency)
        try container.encode(responseBytes, forKey: .responseBytes)
        try container.encode(minimumRatio, forKey: .minimumRatio)
        try container.encode(measuredRatio, forKey: .measuredRatio)
        try container.encode(verdict, forKey: .verdict)
    }
}
