import Foundation

/// The benchmark's sections, in the order they run.
enum BenchmarkSection: String, CaseIterable {
    case overhead, dispatch, shipping, memory, redaction, loki, streaming, genai, largebody, websocket

    /// Runs the section; `rowFilter` keeps only the redaction rows whose label contains it.
    func run(quick: Bool, rowFilter: String? = nil) async throws -> SectionReport {
        switch self {
        case .overhead: try await OverheadBenchmark(quick: quick).run()
        case .dispatch: try await DispatchCostBenchmark(quick: quick).run()
        case .shipping: try await ShippingBenchmark(quick: quick).run()
        case .memory: try MemoryBenchmark().run()
        case .redaction: RedactionBenchmark(quick: quick, rowFilter: rowFilter).run()
        case .loki: try await LokiBenchmark(quick: quick).run()
        case .streaming: try StreamingBenchmark(quick: quick).run()
        case .genai: try await GenAICostBenchmark(quick: quick).run()
        case .largebody: try await LargeBodyBenchmark(quick: quick).run()
        case .websocket: try await WebSocketBenchmark(quick: quick).run()
        }
    }
}
