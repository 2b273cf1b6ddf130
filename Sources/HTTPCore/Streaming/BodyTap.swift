import Foundation
import HTTPCoreConcurrency

/// Watches a streamed body pass, for events: counts its bytes, keeps its first bytes up to
/// the policy's capture cap, splits out server-sent events or JSON lines, and, for an LLM
/// call, reads its response (``GenAIResponseTap``). Never reads the body itself and never
/// keeps more than the caps.
final class BodyTap: Sendable {
    /// What went through so far.
    struct Snapshot: Sendable {
        var byteCount = 0
        var captured = Data()
        var messageCount = 0
        var emittedMessageCount = 0
    }

    private struct State {
        var snapshot = Snapshot()
        var parser: StreamMessageParser?
        /// When the last message arrived, in nanoseconds of uptime.
        var lastMessageAt: UInt64?
        var genAI: GenAIResponseTap?
    }

    /// A message handed over: the message, its index, and the milliseconds since the previous
    /// one arrived (`nil` for the first).
    typealias MessageArrival = (message: StreamMessageParser.Message, index: Int, millisecondsSincePrevious: Double?)

    private let captureLimit: Int
    private let maxMessages: Int
    /// The most bytes of a message handed over; the parser may keep more for `genAI`.
    private let maxMessageBytes: Int
    private let parserTemplate: StreamMessageParser?
    private let genAITemplate: GenAIResponseTap?
    private let onMessage: (@Sendable (MessageArrival) -> Void)?
    private let state: Locked<State>

    /// A tap that keeps `captureLimit` bytes and, when `contentType` carries messages and
    /// `onMessage` is given, hands over the first `maxMessages` of them with their index and
    /// the time since the one before.
    ///
    /// `genAI`: the reader of an LLM call's response, fed every message (each read up to
    /// ``HTTPCorePolicy/maximumGenAIBodyBytes``, whatever `messages` says), or the body when
    /// it carries none.
    init(
        captureLimit: Int,
        contentType: String? = nil,
        messages: HTTPCorePolicy.StreamMessageCapture? = nil,
        onMessage: (@Sendable (MessageArrival) -> Void)? = nil,
        genAI: (recognition: GenAIRecognition, headers: HTTPHeaders, began: UInt64)? = nil
    ) {
        self.captureLimit = captureLimit
        self.maxMessages = messages.map { max(0, $0.maxCount) } ?? 0
        maxMessageBytes = max(0, messages?.maxBytes ?? 0)
        if let genAI {
            let parser = StreamMessageParser(
                contentType: contentType, maxBytes: max(maxMessageBytes, HTTPCorePolicy.maximumGenAIBodyBytes)
            )
            parserTemplate = parser
            genAITemplate = GenAIResponseTap(
                genAI.recognition, headers: genAI.headers, began: genAI.began,
                keepsBody: parser == nil && GenAIResponseTap.keepsBody(ofType: contentType)
            )
        } else {
            parserTemplate = messages.flatMap { StreamMessageParser(contentType: contentType, maxBytes: $0.maxBytes) }
            genAITemplate = nil
        }
        self.onMessage = onMessage
        state = Locked(State(parser: parserTemplate, genAI: genAITemplate))
    }

    var snapshot: Snapshot { state.withLock { $0.snapshot } }

    /// What the LLM call's response said so far; `nil` for a tap that reads none.
    var genAIResponse: GenAIResponse? { state.withLock { $0.genAI?.response } }

    /// `body`, watched as it is read: each pass starts the count again (a retry or redirect
    /// sends a replayable body anew). `stopsWhenDropped`: whether a reading given up before
    /// its end, or the body dropped unread, stops `body`'s producer.
    func watching(_ body: HTTPBody, stopsWhenDropped: Bool = false) -> HTTPBody {
        body.observingReads(readingBegins: beginPass, chunk: record) { end in
            switch end {
            case .finished: self.end()
            case .stopped where stopsWhenDropped: body.stopReading()
            case .failed, .stopped: break
            }
        }
    }

    private func beginPass() {
        state.withLock { $0 = State(parser: parserTemplate, genAI: genAITemplate) }
    }

    private func record(_ chunk: HTTPBody.ByteChunk) {
        let messages = state.withLock { state -> [MessageArrival] in
            state.snapshot.byteCount += chunk.count
            let room = captureLimit - state.snapshot.captured.count
            if room > 0 { state.snapshot.captured.append(contentsOf: chunk.prefix(room)) }
            state.genAI?.keep(chunk)
            guard state.parser != nil else { return [] }
            var completed: [StreamMessageParser.Message] = []
            state.parser!.feed(chunk) { completed.append($0) }
            return count(completed, in: &state)
        }
        messages.forEach { onMessage?($0) }
    }

    private func end() {
        let messages = state.withLock { state -> [MessageArrival] in
            guard state.parser != nil else { return [] }
            var completed: [StreamMessageParser.Message] = []
            state.parser!.finish { completed.append($0) }
            state.parser = nil
            return count(completed, in: &state)
        }
        messages.forEach { onMessage?($0) }
    }

    /// Counts completed messages and returns those to emit, with their index.
    private func count(_ messages: [StreamMessageParser.Message], in state: inout State) -> [MessageArrival] {
        guard !messages.isEmpty else { return [] }
        let now = DispatchTime.now().uptimeNanoseconds
        var emitted: [MessageArrival] = []
        for message in messages {
            let index = state.snapshot.messageCount
            state.snapshot.messageCount += 1
            let sincePrevious = state.lastMessageAt.map { Double(now &- $0) / 1_000_000 }
            state.lastMessageAt = now
            state.genAI?.read(message, arrivedAt: now)
            guard onMessage != nil, index < maxMessages else { continue }
            state.snapshot.emittedMessageCount += 1
            emitted.append((message.prefix(maxMessageBytes), index, sincePrevious))
        }
        return emitted
    }
}

/// The taps of one streaming attempt.
struct BodyTaps: Sendable {
    /// The request body's, when one was streamed.
    let request: BodyTap?
    /// The response body's, once the head arrived.
    let response: BodyTap?
}
