import CoreMetrics
import Foundation
import MetricsTestKit

/// Swift-metrics' test backend, counting the handles made per value of a dimension
/// (`server.address`, `gen_ai.request.model`, ...).
final class CountingMetricsFactory: MetricsFactory, @unchecked Sendable {   // safe: `made` is touched only under `lock`
    let metrics = TestMetrics()
    private let lock = NSLock()
    private var madeHandles: [(kind: String, dimensions: [(String, String)])] = []

    /// How many handles of each kind were made whose `dimension` is `value`.
    func made(_ value: String, for dimension: String = "server.address") -> [String: Int] {
        lock.lock()
        defer { lock.unlock() }
        var counts: [String: Int] = [:]
        for handle in madeHandles where handle.dimensions.contains(where: { $0.0 == dimension && $0.1 == value }) {
            counts[handle.kind, default: 0] += 1
        }
        return counts
    }

    private func count(_ kind: String, _ dimensions: [(String, String)]) {
        lock.lock()
        madeHandles.append((kind, dimensions))
        lock.unlock()
    }

    func makeCounter(label: String, dimensions: [(String, String)]) -> CounterHandler {
        count("counter", dimensions)
        return metrics.makeCounter(label: label, dimensions: dimensions)
    }

    func makeFloatingPointCounter(label: String, dimensions: [(String, String)]) -> FloatingPointCounterHandler {
        metrics.makeFloatingPointCounter(label: label, dimensions: dimensions)
    }

    func makeMeter(label: String, dimensions: [(String, String)]) -> MeterHandler {
        count("meter", dimensions)
        return metrics.makeMeter(label: label, dimensions: dimensions)
    }

    func makeRecorder(label: String, dimensions: [(String, String)], aggregate: Bool) -> RecorderHandler {
        count("recorder", dimensions)
        return metrics.makeRecorder(label: label, dimensions: dimensions, aggregate: aggregate)
    }

    func makeTimer(label: String, dimensions: [(String, String)]) -> TimerHandler {
        count("timer", dimensions)
        return metrics.makeTimer(label: label, dimensions: dimensions)
    }

    func destroyCounter(_ handler: CounterHandler) { metrics.destroyCounter(handler) }
    func destroyFloatingPointCounter(_ handler: FloatingPointCounterHandler) { metrics.destroyFloatingPointCounter(handler) }
    func destroyMeter(_ handler: MeterHandler) { metrics.destroyMeter(handler) }
    func destroyRecorder(_ handler: RecorderHandler) { metrics.destroyRecorder(handler) }
    func destroyTimer(_ handler: TimerHandler) { metrics.destroyTimer(handler) }
}
