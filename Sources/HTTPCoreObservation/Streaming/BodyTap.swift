import Foundation
@_spi(Transports) import HTTPCore
import HTTPCoreConcurrency

/// Watches a streamed body pass, for events: counts its bytes, keeps its first bytes up to
/// the policy's capture cap, splits out server-sent events or JSON lines, and shows the
/// head, each chunk and each message to the interpreters' readings
/// (``HTTPExchangeReading``). Never reads the body itself and never keeps more than the caps.
///
/// The readings are shown each chunk and its messages after the tap's lock is released,
/// under a lock of their own that only the reading task and the end of the exchange take.
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

    /// What one chunk completed: every message, when readings read them, and those to hand
    /// over, with when they arrived.
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
    /// The most bytes of a message handed over; the parser may keep more for the readings.
    private let maxMessageBytes: Int
    private let parserTemplate: StreamMessageParser?
    /// The readings as the head left them, which each pass of the body starts from.
    private let readingsTemplate: [any HTTPExchangeReading]
    /// When the attempt began, in nanoseconds of uptime: messages' arrival counts from it.
    private let began: UInt64
    private let onMessage: (@Sendable (MessageArrival) -> Void)?
    private let state: Locked<State>
    /// The interpreters' readings, apart from ``state`` (see the type's comment); `nil` for a
    /// tap that has none.
    private let shown: Locked<[any HTTPExchangeReading]>?

    /// A tap that keeps `captureLimit` bytes and, when `contentType` carries messages and
    /// `onMessage` is given, hands over the first `maxMessages` of them with their index and
    /// the time since the one before.
    ///
    /// `readings`: the interpreters' readings of the response whose `head` this is, shown
    /// every chunk and every message (each up to ``HTTPExchangeReadingLimits/maximumMessageBytes``,
    /// whatever `messages` says), with its arrival counted from `began` (uptime nanoseconds).
    init(
        captureLimit: Int,
        contentType: String? = nil,
        messages: HTTPCorePolicy.StreamMessageCapture? = nil,
        onMessage: (@Sendable (MessageArrival) -> Void)? = nil,
        readings: [any HTTPExchangeReading] = [],
        head: HTTPResponse.Head? = nil,
        began: UInt64 = 0
    ) {
        self.captureLimit = captureLimit
        self.maxMessages = messages.map { max(0, $0.maxCount) } ?? 0
        maxMessageBytes = max(0, messages?.maxBytes ?? 0)
        self.began = began
        if readings.isEmpty {
            parserTemplate = messages.flatMap { StreamMessageParser(contentType: contentType, maxBytes: $0.maxBytes) }
            readingsTemplate = []
        } else {
            let parser = StreamMessageParser(
                contentType: contentType, maxBytes: max(maxMessageBytes, HTTPExchangeReadingLimits.maximumMessageBytes)
            )
            parserTemplate = parser
            var shown = readings
            if let head {
                for index in shown.indices { shown[index].readHead(head, carriesMessages: parser != nil) }
            }
            readingsTemplate = shown
        }
        self.onMessage = onMessage
        state = Locked(State(parser: parserTemplate))
        shown = readingsTemplate.isEmpty ? nil : Locked(readingsTemplate)
    }

    var snapshot: Snapshot { state.withLock { $0.snapshot } }

    /// The readings as they stand, for their ``HTTPExchangeReading/finish(request:response:error:policy:)``;
    /// `nil` for a tap that has none.
    var readings: [any HTTPExchangeReading]? { shown?.withLock { $0 } }

    /// `body`, watched as it is read: each pass starts the count again (a retry or redirect
    /// sends a replayable body anew). `stopsWhenDropped`: whether a reading given up before
    /// its end, or the body dropped unread, stops `body`'s producer.
    ///
    /// `asRequestBody`: whether `body` is a request body the caller supplied, whose sequence's
    /// failure is then ``/HTTPCore/HTTPError/Code/requestBodyFailed`` with the bytes read so far.
    func watching(_ body: HTTPBody, stopsWhenDropped: Bool = false, asRequestBody: Bool = false) -> HTTPBody {
        body.observingPieces(readingBegins: beginPass, piece: record, end: { end in
            switch end {
            case .finished: self.end()
            case .stopped where stopsWhenDropped: body.stopReading()
            case .failed, .stopped: break
            }
        }, failure: asRequestBody ? HTTPError.requestBodyFailure : nil)
    }

    private func beginPass() {
        state.withLock { $0 = State(parser: parserTemplate) }
        if !readingsTemplate.isEmpty { shown?.withLock { $0 = readingsTemplate } }
    }

    /// Counts and captures `piece` in place; only a parser or the readings, which read
    /// `ArraySlice`s, have a transport's chunk copied for them (``HTTPBody/Piece/bytes``).
    private func record(_ piece: HTTPBody.Piece) {
        // The copy is made outside the lock, and only for a tap that reads on.
        let chunk: HTTPBody.ByteChunk? = parserTemplate != nil || shown != nil ? piece.bytes : nil
        let completed = state.withLock { state -> Completed in
            state.snapshot.byteCount += piece.count
            let room = captureLimit - state.snapshot.captured.count
            if room > 0 {
                piece.withUnsafeBytes { bytes in
                    state.snapshot.captured.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes.prefix(room)))
                }
            }
            guard state.parser != nil, let chunk else { return Completed() }
            var messages: [StreamMessageParser.Message] = []
            state.parser!.feed(chunk) { messages.append($0) }
            return count(messages, in: &state)
        }
        guard let chunk else { return }
        shown?.withLock { readings in
            for index in readings.indices {
                readings[index].readChunk(chunk)
                for message in completed.messages { show(message, arrivedAt: completed.arrivedAt, to: &readings[index]) }
            }
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
            shown?.withLock { readings in
                for index in readings.indices {
                    for message in completed.messages { show(message, arrivedAt: completed.arrivedAt, to: &readings[index]) }
                }
            }
        }
        completed.emitted.forEach { onMessage?($0) }
    }

    /// Shows `message`, which arrived at `uptime`, to `reading`.
    private func show(_ message: StreamMessageParser.Message, arrivedAt uptime: UInt64, to reading: inout any HTTPExchangeReading) {
        reading.readMessage(
            eventType: message.eventType, data: message.data, isTruncated: message.isTruncated,
            secondsSinceAttemptBegan: Double(uptime &- began) / 1_000_000_000
        )
    }

    /// Counts completed messages; returns those to emit, with their index, and all of them
    /// when readings read them.
    private func count(_ messages: [StreamMessageParser.Message], in state: inout State) -> Completed {
        guard !messages.isEmpty else { return Completed() }
        let now = MonotonicClock.nanoseconds()
        var completed = Completed(messages: shown == nil ? [] : messages, arrivedAt: now)
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
