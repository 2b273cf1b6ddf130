import DevSeeObserver
import Foundation
import HTTPCore
import HTTPCoreHAR
import HTTPCoreObservation
import HTTPCoreTesting

/// Section `websocket`: what observing one WebSocket message costs the task that reports it
/// (``WebSocketObservation/received(_:_:)``), against the same work written by hand: count the
/// message and its bytes under a lock, copy the first 4 KiB of its payload, and hand it to one
/// closure.
///
/// Variants run in interleaved rounds, each starting with a different one; each round's time
/// per message is compared with the by-hand round beside it.
struct WebSocketBenchmark {
    let messagesPerRound: Int
    let rounds: Int
    static let payload = Array(#"{"id":"1","type":"next","payload":{"data":{"orders":{"id":"4711","status":"shipped","items":[{"sku":"A-1","count":2}]}}}}"#.utf8)

    init(quick: Bool) {
        messagesPerRound = quick ? 20_000 : 200_000
        rounds = quick ? 5 : 12
    }

    /// One way of reporting messages: `report` is called once per message.
    private struct Variant {
        let name: String
        let targetRatio: Double?
        let report: @Sendable (Int) -> Void
    }

    func run() async throws -> SectionReport {
        var report = SectionReport(key: "websocket", title: "WebSocket messages: the reporting task's cost per message (ns)", columns: [
            Column(header: "Variant", key: "variant"),
            Column(header: "Messages", key: "messages"),
            Column(header: "Mean ns", key: "mean_ns"),
            Column(header: "Allocs", key: "allocations"),
            Column(header: "Time/msg vs by hand", key: "ratio_to_hand"),
        ])
        let payload = Self.payload
        let unreachable = try BenchmarkEnvironment.unreachableServerURL()
        var uncapped = HTTPCorePolicy.debug
        uncapped.streamMessages.maxCount = .max
        let logger = BenchmarkEnvironment.makeLogger(serverURL: unreachable)

        let counts = HandWrittenCounts()
        let handler: @Sendable (Bool, Data) -> Void = { _, data in precondition(!data.isEmpty) }
        let eventHandler: @Sendable (HandWrittenMessage) -> Void = { message in precondition(!message.data.isEmpty) }
        let variants: [Variant] = [
            Variant(name: "by hand: count under a lock, copy 4 KiB, one closure", targetRatio: nil) { _ in
                counts.add(bytes: payload.count)
                handler(false, Data(payload.prefix(4096)))
            },
            Variant(name: "by hand, an event each: the same, timestamped, in a record shared with one closure", targetRatio: nil) { index in
                counts.add(bytes: payload.count)
                eventHandler(HandWrittenMessage(
                    index: index, isSent: false, data: Data(payload.prefix(4096)), byteCount: payload.count, date: Date(),
                    uptime: DispatchTime.now().uptimeNanoseconds
                ))
            },
            Variant(name: "observed, bodies omitted (the default policy)", targetRatio: 1.0, report: try Self.observation(HTTPCorePolicy(), observers: []).received),
            Variant(name: "observed, past the 1,000-message cap", targetRatio: 1.0, report: try Self.pastTheCap(observers: [ClosureObserver { _ in }])),
            Variant(name: "observed, each message an event, 1 no-op observer", targetRatio: nil, report: try Self.observation(uncapped, observers: [ClosureObserver { _ in }]).received),
            Variant(name: "observed, each message an event, HARRecorder and DevSeeObserver", targetRatio: nil, report: try Self.observation(
                uncapped, observers: [HARRecorder(capacity: 10), DevSeeObserver(logger: logger)]
            ).received),
        ]
        func batch(_ variant: Variant, _ count: Int) -> (seconds: Double, allocations: Int?) {
            let start = nowNanoseconds()
            for index in 0..<count { variant.report(index) }
            return (secondsSince(start), nil)
        }
        for variant in variants { _ = batch(variant, messagesPerRound / 10) }
        var seconds = Array(repeating: [Double](), count: variants.count)
        for round in 0..<rounds {
            for offset in variants.indices {
                let index = (round + offset) % variants.count
                seconds[index].append(batch(variants[index], messagesPerRound).seconds)
            }
        }
        let handEvents = variants.firstIndex { $0.name.hasPrefix("by hand, an event each") }!
        let observedEvents = variants.firstIndex { $0.name.hasPrefix("observed, each message an event, 1 no-op") }!
        let eventRatio = median(zip(seconds[observedEvents], seconds[handEvents]).map { $0 / $1 })
        report.targets.append(TargetCheck(
            name: "websocket an event per message, 1 no-op observer, vs by hand", measured: eventRatio, comparison: .atMost, limit: 1.5,
            unit: "x an event by hand"
        ))
        for (index, variant) in variants.enumerated() {
            let allocations = await AllocationCounter.count { for message in 0..<10_000 { variant.report(message) } }.allocations
            let ratio = median(zip(seconds[index], seconds[0]).map { $0 / $1 })
            let messages = rounds * messagesPerRound
            report.rows.append([
                .text(variant.name), .integer(messages), .number(seconds[index].reduce(0, +) / Double(messages) * 1e9, decimals: 0),
                allocations.map { .number(Double($0) / 10_000, decimals: 1) } ?? .text("n/a"), .number(ratio, decimals: 3),
            ])
            if let limit = variant.targetRatio {
                report.targets.append(TargetCheck(name: "websocket \(variant.name)", measured: ratio, comparison: .atMost, limit: limit, unit: "x by hand"))
            }
        }
        report.notes = [
            "Time/msg vs by hand: against the first row; the target for an event per message compares it with the second, the same work as a hand-written observer's.",
            "A received text message of \(payload.count) bytes (a graphql-ws `next`), reported by one task; \(rounds) interleaved rounds of \(messagesPerRound) messages per variant.",
            "\"Each message an event\": the .debug policy with StreamMessageCapture.maxCount raised past the round, so every message is emitted; "
                + "\"past the cap\": the default 1,000, reached before the rounds start, so messages are counted only.",
            "HARRecorder and DevSeeObserver (server down) keep at most their caps of a connection's messages and redact on their workers.",
        ]
        await logger.shutdown()
        return report
    }

    /// An open connection observed by `observers` under `policy`.
    private static func observation(_ policy: HTTPCorePolicy, observers: [any HTTPObserver]) throws -> WebSocketObservation {
        let dispatcher = HTTPEventDispatcher()
        for observer in observers { dispatcher.subscribe(observer) }
        let client = HTTPTransportClient(transport: MockTransport(), dispatcher: dispatcher, policy: policy)
        let observation = try client.observeWebSocket(HTTPRequest(url: URL(string: "wss://realtime.example.com/graphql")!))
        observation.opened(HTTPResponse.Head(requestID: observation.request.id, statusCode: 101, url: observation.request.url))
        return observation
    }

    /// A connection whose first 1,000 messages, the default cap, were emitted already.
    private static func pastTheCap(observers: [any HTTPObserver]) throws -> @Sendable (Int) -> Void {
        let observation = try observation(.debug, observers: observers)
        for _ in 0..<1_000 { observation.received(.text, payload) }
        return { _ in observation.received(.text, payload) }
    }
}

/// A message as a hand-written observer would hand it on: one allocation, shared.
private final class HandWrittenMessage: Sendable {
    let index: Int
    let isSent: Bool
    let data: Data
    let byteCount: Int
    let date: Date
    let uptime: UInt64

    init(index: Int, isSent: Bool, data: Data, byteCount: Int, date: Date, uptime: UInt64) {
        self.index = index
        self.isSent = isSent
        self.data = data
        self.byteCount = byteCount
        self.date = date
        self.uptime = uptime
    }
}

/// What an app would keep by hand: counts under a lock.
private final class HandWrittenCounts: @unchecked Sendable {
    /// Guards the counts.
    private let lock = NSLock()
    private var messages = 0
    private var bytes = 0

    func add(bytes count: Int) {
        lock.lock()
        messages += 1
        bytes += count
        lock.unlock()
    }
}

private extension WebSocketObservation {
    /// Reports the benchmark's payload as received.
    var received: @Sendable (Int) -> Void {
        { _ in self.received(.text, WebSocketBenchmark.payload) }
    }
}
