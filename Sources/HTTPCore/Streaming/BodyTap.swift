import Foundation
import HTTPCoreConcurrency

/// Watches a streamed body pass, for events: counts its bytes, keeps its first bytes up to
/// the policy's capture cap, splits out server-sent events or JSON lines, and, for an LLM
/// call, reads its response (``GenAIResponseTap``). Never reads the body itself and never
/// keeps more than the caps.
///
/// An LLM call's messages are handed to its ``GenAIResponseTap`` after the tap's lock is
/// released, under a lock of their own that only the reading task and the end of the
/// exchange take. That tap keeps them unread, within a memory budget, for their JSON to be
/// parsed when the facts are first asked for (on a sink's worker): the reading task copies
/// their bytes and parses them only for a stream longer than the budget.
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
    }

    /// What one chunk completed: every message, when they are read for an LLM call, and
    /// those to hand over, with when they arrived.
    private struct Completed {
        var messages: [StreamMessageParser.Message] = []
        var emitted: [MessageArrival] = []
        var arrivedAt: UInt64 = 0
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
    /// The reading of an LLM call's response, apart from ``state`` (see the type's comment);
    /// `nil` for a tap that reads none.
    private let genAI: Locked<GenAIResponseTap>?

    /// A tap that keeps `captureLimit` bytes and, when `contentType` carries messages and
    /// `onMessage` is given, hands over the first `maxMessages` of them with their index and
    /// the time since the one before.
    ///
    /// `genAI`: the tap of an LLM call's response, fed every message (each read up to
    /// ``HTTPCorePolicy/maximumGenAIMessageBytes``, whatever `messages` says), or the body,
    /// up to ``HTTPCorePolicy/maximumGenAIBodyBytes``, when it carries none.
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
                contentType: contentType, maxBytes: max(maxMessageBytes, HTTPCorePolicy.maximumGenAIMessageBytes)
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
        state = Locked(State(parser: parserTemplate))
        self.genAI = genAITemplate.map { Locked($0) }
    }

    var snapshot: Snapshot { state.withLock { $0.snapshot } }

    /// What the LLM call's response tap took so far, to be read into facts later
    /// (``GenAIResponseTap/response``); `nil` for a tap that reads none. A copy that shares
    /// the tap's buffers until either changes.
    var genAIRead: GenAIResponseTap? { genAI?.withLock { $0 } }

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
        state.withLock { $0 = State(parser: parserTemplate) }
        if let genAITemplate { genAI?.withLock { $0 = genAITemplate } }
    }

    private func record(_ chunk: HTTPBody.ByteChunk) {
        let completed = state.withLock { state -> Completed in
            state.snapshot.byteCount += chunk.count
            let room = captureLimit - state.snapshot.captured.count
            if room > 0 { state.snapshot.captured.append(contentsOf: chunk.prefix(room)) }
            guard state.parser != nil else { return Completed() }
            var messages: [StreamMessageParser.Message] = []
            state.parser!.feed(chunk) { messages.append($0) }
            return count(messages, in: &state)
        }
        genAI?.withLock { tap in
            tap.keep(chunk)
            for message in completed.messages { tap.read(message, arrivedAt: completed.arrivedAt) }
        }
        completed.emitted.forEach { onMessage?($0) }
    }

    private func end() {
        let completed = state.withLock { state -> Completed in
            guard state.parser != nil else { return Completed() }
            var messages: [StreamMessageParser.Message] = []
            state.parser!.finish { messages.append($0) }
            state.parser = nil
            return count(messages, in: &state)
        }
        if !completed.messages.isEmpty {
            genAI?.withLock { tap in
                for message in completed.messages { tap.read(message, arrivedAt: completed.arrivedAt) }
            }
        }
        completed.emitted.forEach { onMessage?($0) }
    }

    /// Counts completed messages; returns those to emit, with their index, and all of them
    /// when an LLM call's response is read.
    private func count(_ messages: [StreamMessageParser.Message], in state: inout State) -> Completed {
        guard !messages.isEmpty else { return Completed() }
        let now = MonotonicClock.nanoseconds()
        var completed = Completed(messages: genAI == nil ? [] : messages, arrivedAt: now)
        for message in messages {
            let index = state.snapshot.messageCount
            state.snapshot.messageCount += 1
            let sincePrevious = state.lastMessageAt.map { Double(now &- $0) / 1_000_000 }
            state.lastMessageAt = now
            guard onMessage != nil, index < maxMessages else { continue }
            state.snapshot.emittedMessageCount += 1
            completed.emitted.append((message.prefix(maxMessageBytes), index, sincePrevious))
        }
        return completed
    }
}

/// The taps of one streaming attempt.
struct BodyTaps: Sendable {
    /// The request body's, when one was streamed.
    let request: BodyTap?
    /// The response body's, once the head arrived.
    let response: BodyTap?
}
