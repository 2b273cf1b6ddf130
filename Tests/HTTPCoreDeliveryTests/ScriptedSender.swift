import HTTPCore
import HTTPCoreDelivery
import HTTPCoreConcurrency

/// A sender whose answers follow a script (then `.delivered`), recording every batch built
/// and sent; items are numbers, a batch is the list of its numbers.
struct ScriptedSender: DeliverySender {
    struct Record: Sendable {
        var script: [DeliveryOutcome]
        var built: [[Int]] = []
        var sent: [[Int]] = []
        /// While set, a send waits (at most 60 s) before it answers.
        var isHolding = false
    }

    let record: AsyncCondition<Record>

    init(script: [DeliveryOutcome] = []) {
        record = AsyncCondition(Record(script: script))
    }

    func makeBatch(_ items: [Int]) -> [Int] {
        record.update { $0.built.append(items) }
        return items
    }

    func send(_ batch: [Int]) async -> DeliveryOutcome {
        let isHolding = record.update { record in
            record.sent.append(batch)
            return record.isHolding
        }
        if isHolding {
            _ = try? await record.wait(timeout: 60, until: { !$0.isHolding }) { _ in DeliveryTestError("a send held for 60 s") }
        }
        return record.update { $0.script.isEmpty ? .delivered : $0.script.removeFirst() }
    }

    /// Waits until `count` batches were built; fails loudly after 60 s.
    func waitForBuilds(_ count: Int) async throws -> [[Int]] {
        try await record.wait(timeout: 60, until: { $0.built.count >= count }) { record in
            DeliveryTestError("expected \(count) builds, got \(record.built)")
        }.built
    }

    /// Waits until `count` sends were made; fails loudly after 60 s.
    func waitForSends(_ count: Int) async throws -> [[Int]] {
        try await record.wait(timeout: 60, until: { $0.sent.count >= count }) { record in
            DeliveryTestError("expected \(count) sends, got \(record.sent)")
        }.sent
    }
}

struct DeliveryTestError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// A queue of numbers with a scripted sender and its diagnostics recorded.
struct QueueHarness {
    let sender: ScriptedSender
    let queue: DeliveryQueue<ScriptedSender>
    let diagnostics = Locked<[DeliveryDiagnostic]>([])

    init(script: [DeliveryOutcome] = [], configure: (inout DeliveryConfiguration) -> Void = { _ in }) {
        sender = ScriptedSender(script: script)
        var configuration = DeliveryConfiguration()
        configuration.backoff = Backoff(initial: 0.01, maximum: 0.05, jitter: .none)
        configure(&configuration)
        let diagnostics = diagnostics
        configuration.diagnostics = { diagnostic in diagnostics.withLock { $0.append(diagnostic) } }
        queue = DeliveryQueue(sender: sender, configuration: configuration)
    }

    func enqueue(_ items: Range<Int>, byteCost: Int = 10) {
        for item in items { queue.enqueue(item, byteCost: byteCost) }
    }
}
