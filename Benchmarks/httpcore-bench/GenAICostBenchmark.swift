import Foundation
import HTTPCore
import HTTPCoreObservation
import HTTPCoreGenAI

/// Section 8: what recognising LLM calls (`HTTPCorePolicy.genAI`) costs an exchange through
/// `HTTPTransportClient`, with recognition on and off, for exchanges that are not LLM calls
/// and for one that is.
///
/// One no-op observer is subscribed: an exchange nobody observes is not recognised at all.
/// On and off run in alternating rounds, each round starting with the other, so drift on a
/// shared machine spreads over both.
struct GenAICostBenchmark {
    let requests: Int
    let rounds: Int
    /// The streamed exchanges timed per round: each reads hundreds of messages.
    let streams: Int

    init(quick: Bool) {
        requests = quick ? 10_000 : 50_000
        rounds = quick ? 20 : 40
        streams = quick ? 20 : 100
    }

    /// One kind of exchange: the request the caller sends and the response the transport gives.
    private struct Variant {
        let name: String
        let isLLMCall: Bool
        let makeRequest: @Sendable () -> HTTPRequest
        let response: InstantTransport
    }

    func run() async throws -> SectionReport {
        let orders = URL(string: "https://api.example.com/v1/orders")!
        let chat = URL(string: "https://api.openai.com/v1/chat/completions")!
        let orderBody = Data(#"{"sku":"A-1042","quantity":2,"customer":"c_8812","note":"leave at the door","gift":false}"#.utf8)
        let variants = [
            Variant(name: "GET, not an LLM call", isLLMCall: false, makeRequest: { HTTPRequest(url: orders) }, response: InstantTransport()),
            Variant(
                name: "POST of a JSON body to another host, not an LLM call", isLLMCall: false,
                makeRequest: { HTTPRequest(method: .post, url: orders, headers: ["Content-Type": "application/json"], body: orderBody) },
                response: InstantTransport()
            ),
            Variant(
                name: "LLM call: OpenAI chat completion, buffered", isLLMCall: true,
                makeRequest: { HTTPRequest(method: .post, url: chat, headers: ["Content-Type": "application/json"], body: Self.chatRequest) },
                response: InstantTransport(body: Self.chatResponse, headers: ["Content-Type": "application/json"])
            ),
        ]
        var report = SectionReport(key: "genai", title: "8. GenAI recognition: client cost per exchange (ns), 1 no-op observer", columns: [
            Column(header: "Exchange", key: "exchange"),
            Column(header: "Exchanges", key: "exchanges"),
            Column(header: "Recognition on", key: "on_ns"),
            Column(header: "Recognition off", key: "off_ns"),
            Column(header: "On - off", key: "added_ns"),
            Column(header: "Allocs on - off", key: "added_allocations"),
        ])
        for variant in variants {
            let cost = await measure(transport: variant.response, count: requests, perExchange: 1) { client in
                _ = try? await client.send(variant.makeRequest())
            }
            report.rows.append(row(variant.name, exchanges: requests * rounds, cost))
            if !variant.isLLMCall {
                report.targets.append(TargetCheck(
                    name: "GenAI recognition adds to \(variant.name)", measured: cost.added, comparison: .below, limit: 100, unit: "ns"
                ))
            }
        }
        for messages in [500, 4000] {
            let stream = StreamTransport(messageCount: messages)
            for readsFacts in [false, true] {
                let cost = await measure(transport: stream, count: streams, perExchange: messages, readsFacts: readsFacts) { client in
                    _ = try? await client.send(Self.streamRequest) { _, body in for try await _ in body {} }
                }
                let name = "LLM call: OpenAI chat stream of \(messages) messages, per message, "
                    + (readsFacts ? "the observer reading event.genAI inline" : "the reading task")
                report.rows.append(row(name, exchanges: streams * rounds, cost))
            }
        }
        let recognizer = await recognizerAlone(url: orders)
        report.notes = [
            "On and off: the median over \(rounds) rounds of the mean time of \(requests) exchanges through "
                + "HTTPTransportClient(policy: .release) over an in-memory transport that answers at once, transport included; "
                + "on: the default recognizer (GenAIRecognizer.standard), off: policy.genAI = nil. "
                + "On - off: the median of each round's difference, on and off measured back to back.",
            "LLM call: a 274-byte chat request and a 717-byte chat.completion answer; on, the terminal event carries the "
                + "call, its request and response bodies parsed once, when the observer reads event.genAI.",
            "Allocs on - off: allocations per exchange (\(AllocationCounter.method), every thread), on minus off, over "
                + "\(requests) exchanges each.",
            "The recognizer alone, GenAIRecognizer.standard.recognize(method: .post, url:) on the POST's URL, another host: "
                + String(format: "%.0f ns", recognizer.nanoseconds) + " per call (the median over \(rounds) rounds of \(requests) calls), "
                + (recognizer.allocations.map { String(format: "%.1f", $0) } ?? "n/a") + " allocations per call.",
            "The target for exchanges that are not LLM calls, nothing measurable: under 100 ns, within this machine's "
                + "round-to-round noise on a client exchange of 2 to 3 µs.",
            "Streams: \(streams) exchanges a round through HTTPTransportClient(policy: .release) over an in-memory transport "
                + "whose body is one server-sent event a chunk (\(StreamTransport.eventByteCount) bytes each: OpenAI "
                + "chat.completion.chunk deltas, then a finish chunk and a usage chunk), read to its end by the caller; times "
                + "divided by the messages of a stream. The reading task: the observer does not read event.genAI, so the "
                + "time is what the caller's task pays as the body passes (recognition, the tap, the terminal event); read "
                + "inline: the observer reads event.genAI on the caller's task as the terminal event is emitted, so the "
                + "facts' derivation is in the time too (a sink reads them on its worker instead).",
        ]
        return report
    }

    /// A row of the table: what an exchange of `name` cost, on, off and added.
    private func row(_ name: String, exchanges: Int, _ cost: Cost) -> [Cell] {
        [
            .text(name), .integer(exchanges), .number(cost.on, decimals: 0), .number(cost.off, decimals: 0),
            .number(cost.added, decimals: 0), cost.addedAllocations.map { .number($0, decimals: 1) } ?? .text("n/a"),
        ]
    }

    /// What `GenAIRecognizer.standard` costs a `POST` to `url` by itself: the median time per
    /// call, and allocations per call (`nil` without the interposer).
    private func recognizerAlone(url: URL) async -> (nanoseconds: Double, allocations: Double?) {
        let recognizer = GenAIRecognizer.standard
        func time(count: Int) -> Double {
            var recognised = 0
            let start = nowNanoseconds()
            for _ in 0..<count where recognizer.recognize(method: .post, url: url) != nil { recognised += 1 }
            precondition(recognised == 0, "\(url) is not an LLM call")
            return Double(nowNanoseconds() &- start) / Double(count)
        }
        _ = time(count: requests / 10)
        let samples = (0..<rounds).map { _ in time(count: requests) }
        let allocations = await AllocationCounter.count { _ = time(count: requests) }.allocations
        return (median(samples), allocations.map { Double($0) / Double(requests) })
    }

    /// What recognition costs, in nanoseconds per unit (`perExchange` units an exchange, a
    /// stream's messages), and allocations per unit (`nil` without the interposer).
    private struct Cost {
        let on: Double
        let off: Double
        /// The median of each round's difference, on and off measured back to back.
        let added: Double
        let addedAllocations: Double?
    }

    /// The median time per unit of `count` exchanges (`exchange`) over `transport`, with
    /// recognition on and off, the median of their difference round by round, and the
    /// allocations per unit that recognition adds. `readsFacts`: whether the observer reads
    /// the facts inline, as the terminal event is emitted.
    private func measure<Transport: HTTPTransport>(
        transport: Transport, count: Int, perExchange: Int, readsFacts: Bool = true,
        exchange: @escaping @Sendable (HTTPTransportClient<Transport>) async -> Void
    ) async -> Cost {
        let rounds = rounds
        return await Task.detached {
            let dispatcher = HTTPEventDispatcher()
            // The observer reads the facts, as a sink does: the client derives them on first read.
            let subscription = dispatcher.subscribe { event in if readsFacts { _ = event.genAI } }
            defer { subscription.cancel() }
            let clients = [HTTPCorePolicy.release.interpreting(.genAI), HTTPCorePolicy.release].map {
                HTTPTransportClient(transport: transport, dispatcher: dispatcher, policy: $0)
            }
            let units = Double(count * perExchange)
            func time(_ client: HTTPTransportClient<Transport>, count: Int) async -> Double {
                let start = nowNanoseconds()
                for _ in 0..<count { await exchange(client) }
                return Double(nowNanoseconds() &- start) / units
            }
            for client in clients { _ = await time(client, count: max(1, count / 10)) }
            var samples: [[Double]] = [[], []]
            for round in 0..<rounds {
                for offset in 0..<2 {
                    let index = (round + offset) % 2
                    samples[index].append(await time(clients[index], count: count))
                }
            }
            var allocations: [Int?] = []
            for client in clients {
                allocations.append(await AllocationCounter.count { _ = await time(client, count: count) }.allocations)
            }
            let addedAllocations = allocations[0].flatMap { on in allocations[1].map { Double(on - $0) / units } }
            return Cost(
                on: median(samples[0]), off: median(samples[1]), added: median(zip(samples[0], samples[1]).map { $0 - $1 }),
                addedAllocations: addedAllocations
            )
        }.value
    }

    /// A transport that answers at once with one response, to time the client alone.
    private struct InstantTransport: HTTPBufferedTransport {
        var body = Data()
        var headers: HTTPHeaders = [:]

        func perform(_ request: HTTPRequest) async throws -> HTTPResponse {
            HTTPResponse(requestID: request.id, statusCode: 200, headers: headers, body: body, url: request.url)
        }
    }

    /// A transport that answers at once with a stream of OpenAI chat chunks, one server-sent
    /// event a chunk, made once.
    private struct StreamTransport: HTTPTransport {
        static let delta = "data: " + #"{"id":"chatcmpl-B9MHDbslfkBeAs8l4bebGdFOJ6PeG","object":"chat.completion.chunk","created":1741570283,"#
            + #""model":"gpt-4o-mini-2024-07-18","system_fingerprint":"fp_06737a9306","choices":[{"index":0,"delta":"#
            + #"{"content":" word"},"logprobs":null,"finish_reason":null}],"usage":null}"# + "\n\n"
        static let finish = "data: " + #"{"id":"chatcmpl-B9MHDbslfkBeAs8l4bebGdFOJ6PeG","object":"chat.completion.chunk","created":1741570283,"#
            + #""model":"gpt-4o-mini-2024-07-18","system_fingerprint":"fp_06737a9306","choices":[{"index":0,"delta":{},"#
            + #""logprobs":null,"finish_reason":"stop"}],"usage":null}"# + "\n\n"
        static let usage = "data: " + #"{"id":"chatcmpl-B9MHDbslfkBeAs8l4bebGdFOJ6PeG","object":"chat.completion.chunk","created":1741570283,"#
            + #""model":"gpt-4o-mini-2024-07-18","system_fingerprint":"fp_06737a9306","choices":[],"usage":{"prompt_tokens":1214,"#
            + #""completion_tokens":9,"total_tokens":1223}}"# + "\n\n"
        static var eventByteCount: Int { delta.utf8.count }

        let chunks: [HTTPBody.ByteChunk]

        /// A stream of `messageCount` messages: deltas, a finish chunk and a usage chunk.
        init(messageCount: Int) {
            chunks = Array(repeating: HTTPBody.ByteChunk(Self.delta.utf8), count: messageCount - 2)
                + [HTTPBody.ByteChunk(Self.finish.utf8), HTTPBody.ByteChunk(Self.usage.utf8)]
        }

        func perform(_ request: HTTPRequest, body: HTTPBody?) async throws -> (HTTPResponse.Head, HTTPBody) {
            let head = HTTPResponse.Head(requestID: request.id, statusCode: 200, headers: ["Content-Type": "text/event-stream"], url: request.url)
            let chunks = chunks
            return (head, HTTPBody(length: .unknown) { Chunks(chunks: chunks) })
        }
    }

    /// Chunks in memory, handed over one by one as an asynchronous sequence.
    private struct Chunks: AsyncSequence, AsyncIteratorProtocol, Sendable {
        let chunks: [HTTPBody.ByteChunk]
        var index = 0

        func makeAsyncIterator() -> Chunks { self }

        mutating func next() async -> HTTPBody.ByteChunk? {
            guard index < chunks.count else { return nil }
            defer { index += 1 }
            return chunks[index]
        }
    }

    private static let streamRequest = HTTPRequest(
        method: .post, url: URL(string: "https://api.openai.com/v1/chat/completions")!, headers: ["Content-Type": "application/json"],
        body: Data(#"{"model":"gpt-4o-mini","messages":[{"role":"user","content":"Tell a long story."}],"stream":true}"#.utf8)
    )

    private static let chatRequest = Data(#"""
        {"model":"gpt-4o-mini","messages":[{"role":"system","content":"You are a terse assistant."},\#
        {"role":"user","content":"Name three rivers in Portugal and one sentence about each."}],\#
        "max_tokens":256,"temperature":0.7,"top_p":0.9,"n":1,"stop":["\n\n"],"seed":42,"stream":false}
        """#.utf8)

    private static let chatResponse = Data(#"""
        {"id":"chatcmpl-AbC123xyz","object":"chat.completion","created":1741569952,"model":"gpt-4o-mini-2024-07-18",\#
        "choices":[{"index":0,"message":{"role":"assistant","content":"The Tagus flows from Spain to Lisbon. \#
        The Douro runs through the port-wine valleys to Porto. The Mondego is the longest river entirely in Portugal.",\#
        "refusal":null,"annotations":[]},"logprobs":null,"finish_reason":"stop"}],\#
        "usage":{"prompt_tokens":31,"completion_tokens":41,"total_tokens":72,\#
        "prompt_tokens_details":{"cached_tokens":0,"audio_tokens":0},\#
        "completion_tokens_details":{"reasoning_tokens":0,"audio_tokens":0,"accepted_prediction_tokens":0,"rejected_prediction_tokens":0}},\#
        "service_tier":"default","system_fingerprint":"fp_b8bc95a0ac"}
        """#.utf8)
}
