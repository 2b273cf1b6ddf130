import Foundation
import HTTPCore
import HTTPCoreObservation
import HTTPCoreText
import HTTPCoreConcurrency

/// An ``/HTTPCoreObservation/HTTPObserver`` that keeps the last exchanges and writes them as a HAR 1.2 file, for
/// browser dev tools, HAR viewers and bug reports.
///
/// ```swift
/// let recorder = HARRecorder(capacity: 500)
/// dispatcher.subscribe(recorder)
/// // ... requests ...
/// await dispatcher.flush()
/// try recorder.write(to: URL(fileURLWithPath: "session.har"))
/// ```
///
/// What it records is what the client's ``/HTTPCoreObservation/HTTPCorePolicy`` exposes: URLs, headers, cookies,
/// bodies and error messages arrive redacted, and bodies only when the policy captures them
/// (up to its cap; a cut body says so in a `comment` and `_truncated`). Each entry is one
/// exchange, at its terminal event, plus one per attempt that was retried (a 503 followed by
/// a 200 is two entries of one `_requestId`: the exchange, `_outcome` `succeeded`, listed
/// first because it started first, and its first attempt, `_outcome` `retried`). A failed
/// or cancelled exchange without a response has `response.status` 0 and the scrubbed error in
/// `response._error` (with ``/HTTPCore/HTTPError/typeName`` in `_errorType`), as browsers write
/// them; one that failed after its status (a body cut short) keeps the status, with
/// `_outcome` `failed`, the same `_error` and `_errorType`, and a `comment` that says so. So
/// does a success whose note reports a failure its status does not show (an LLM stream the
/// provider's error event ended, under a 200): the note, `<name>: <summary>`, is its `_error`
/// and in its `comment`, and the note's name its `_errorType`.
///
/// Every entry that ended is either in the file or counted: `entries + _droppedEntries` is
/// the number of exchanges and retried attempts that ended while the recorder was subscribed.
/// Memory is bounded: only the last `capacity` entries are kept; older ones are dropped and
/// counted in ``droppedCount``, which the file states in `log.comment` and
/// `_droppedEntries`.
///
/// Cost: `handle(_:)` runs on the task that emitted the event and, but for the events with
/// large bodies below, redacts nothing: at a terminal or retried event it stores the event, with the
/// message events kept for its attempt, and at a message event it keeps the event for its
/// entry (a retain and an append, under a lock). Entries are made from their events by ``harDocument()`` and
/// ``write(to:)``, which read the events' redacted request and response (redacted once per
/// event, shared with the other observers and kept for the next document) and build the
/// JSON.
///
/// An entry weighs its event until then: the request and response as the client holds
/// them, plus, for a stream, `maxStreamMessagesPerEntry` message events of at most the
/// policy's `streamMessages.maxBytes`. An event holding more than 256 KiB of raw bodies (a
/// buffered exchange's, or a request body given whole) is kept with its raw bodies cut to
/// a copy of the bytes the policy captures, which is all its entry would show: it weighs
/// its headers plus twice the policy's body cap at most, whatever the bodies' sizes, and
/// `handle(_:)` copies those bytes but redacts nothing. Its entry would weigh as much, so
/// it is always kept for later and counts nothing against `maximumDeferredBytes`. Such an event with attachments (an
/// LLM call's, whose facts read the raw request when first asked) is made into its entry at
/// once instead, in `handle(_:)`: the entry keeps only the redacted request and response.
/// Nothing else counts, since making the entry would not shrink it: a streamed response is
/// held only as far as the policy captures it, and URL, headers and messages would be kept
/// redacted. Nor does an LLM call's record (`event.genAI`, with HTTPCoreGenAI): what it took of a
/// streamed answer to read the facts from (up to 4 MiB of a JSON body or 256 KiB of
/// messages) is shared with the other observers and let go once the first of them reads the
/// facts, as this recorder does when it builds a document; made at once, the entry would
/// read them on the request's task. So that entries not made yet stay bounded together,
/// whoever reads the facts: once their events keep `maximumDeferredBytes` alive (by
/// `retainedByteCount`, as recorded, the message events kept with an entry included), a later
/// one is made at once too, until older entries are dropped or removed. Messages of
/// exchanges still open are kept for at most `capacity` exchanges at once: past it, the
/// oldest stream's are forgotten (and counted as dropped in its entry). Nothing else is kept
/// between events: the times of an entry's attempt come with its terminal or retried event.
///
/// Streamed exchanges (``/HTTPCore/HTTPClient/send(_:body:receive:isolation:)``) are entries like the
/// others, written at their end with what really went through: `content.size` and
/// `bodySize` are the bytes received, `content.text` the first bytes the policy captured
/// (with `comment` and `_truncated` when there was more), and `_streamed` is `true`. Their
/// server-sent events and JSON lines, which arrive as ``/HTTPCoreObservation/HTTPEvent/Name/responseMessage``
/// events, are kept until the exchange ends and written in its entry, the way Chrome DevTools
/// keeps a stream's messages beside its response: `_eventSourceMessages` (`time`,
/// `eventName`, `eventId`, `data`) or `_jsonLines` (`time`, `data`), with
/// `_streamMessageCount` (all that arrived) and `_droppedStreamMessages` (those not in the
/// file: past the policy's `streamMessages.maxCount` or the recorder's
/// `maxStreamMessagesPerEntry`). An attempt that was retried keeps its own messages.
///
/// A WebSocket connection (``/HTTPCoreObservation/WebSocketObservation``) is one entry, as Chrome
/// DevTools exports one: `_resourceType` `websocket`, the handshake as `request` (its `GET` and
/// ws or wss URL) and its `101` as `response`, and its messages either way, kept and counted as
/// a stream's, in `_webSocketMessages` (`type` `send` or `receive`, `time` in seconds since
/// 1970, `opcode`, `data`: a text message's text, any other payload in base64), never in
/// `_eventSourceMessages` or `_jsonLines`. `_webSocket` sums up the messages and bytes each way
/// and the close. A connection that failed (cut without a close frame) reads as any exchange
/// that failed after its status, with DevTools' `error` row last in its messages.
///
/// An LLM call's entry (`event.genAI`, with HTTPCoreGenAI) carries `_genAI`: `summary`, the call at a
/// glance (`claude-sonnet-4 · 3,097 in, 15 out tokens · first chunk 500 ms · stop`), and
/// `attributes`, its OpenTelemetry GenAI attributes under the convention's names. Nothing of the
/// prompt or the answer is added: those are only in the bodies, as the policy captured them.
///
/// Timings: transports report only complete responses, so `wait` runs from the attempt's
/// start to its response or failure (sending and downloading included), `receive` from there to the end
/// of the exchange (what middlewares did after it; about 0 without them), `blocked` covers
/// earlier attempts, retry delays and middlewares before the attempt (-1 when there were
/// none), `send` is 0, and `dns`, `connect` and `ssl` are -1. `time` is their sum: the
/// exchange's duration on the monotonic clock. `httpVersion` is `HTTP/1.1` and `statusText`
/// empty, since transports report neither.
public final class HARRecorder: HTTPObserver {
    /// The number of entries kept by default: 1,000.
    @usableFromInline package static let defaultCapacity = 1_000

    /// The version written as `log.creator.version` (name `HTTPCore`): this writer's format,
    /// raised when the recorded fields change.
    package static let creatorVersion = "1.2"

    /// The number of messages of a streamed response kept per entry by default: 100.
    @usableFromInline package static let defaultMaxStreamMessagesPerEntry = 100

    /// The most entries kept; at least 1. Older entries are dropped and counted.
    package let capacity: Int

    /// The most server-sent events, JSON lines or WebSocket messages kept per entry, the first
    /// ones; later ones are counted in the entry's `_droppedStreamMessages`.
    package let maxStreamMessagesPerEntry: Int

    /// The most raw body bytes an event may hold (``rawBodyByteCount(of:)``) to be kept as it
    /// is until a document is built; a heavier one is kept with its bodies cut to the policy's
    /// capture, or, with attachments, made into its entry at once, so the recorder never keeps
    /// its raw bodies.
    static let maximumDeferredBodyBytes = 256 * 1024

    /// The most bytes the events of entries not made yet keep alive together by default: 32 MiB.
    @usableFromInline package static let defaultMaximumDeferredBytes = 32 * 1024 * 1024

    /// The most bytes the events of entries not made yet may keep alive together, as their
    /// `retainedByteCount` counted when they were recorded (the terminal or retried event's, and
    /// what each stream message kept with it holds beyond the records they share); an event
    /// past it is made into its entry at once.
    package let maximumDeferredBytes: Int

    /// The message events kept for one streamed exchange still open, in the order they came
    /// (attempt by attempt), with how many the latest attempt has: what a new message is
    /// weighed against, without counting them again each time.
    private struct OpenStream {
        var events: [HTTPEvent] = []
        var latestAttempt = 0
        var latestAttemptCount = 0

        /// Keeps `event` unless its attempt has `maximum` kept already.
        mutating func keep(_ event: HTTPEvent, upTo maximum: Int) {
            if event.attempt != latestAttempt {
                latestAttempt = event.attempt
                latestAttemptCount = events.lazy.filter { $0.attempt == event.attempt }.count
            }
            guard latestAttemptCount < maximum else { return }
            events.append(event)
            latestAttemptCount += 1
        }
    }

    private struct State {
        var entries: BoundedQueue<HARRecordedEntry>
        /// The message events of streamed exchanges still open, by request.
        var openStreams: [HTTPRequest.ID: OpenStream] = [:]
        /// Entries dropped to stay within the capacity.
        var overflowCount = 0
        /// What the entries not made yet count against ``maximumDeferredBytes``.
        var deferredByteCount = 0

        /// What appending an entry frees of ``deferredByteCount``: the oldest entry's, when
        /// the queue is full and drops it.
        var byteCountFreedByAppending: Int {
            entries.isFull ? entries.first?.deferredByteCount ?? 0 : 0
        }

        /// Keeps `entry`, dropping (and counting) the oldest when the queue is full.
        mutating func append(_ entry: HARRecordedEntry) {
            if let dropped = entries.append(entry) {
                overflowCount += 1
                deferredByteCount -= dropped.deferredByteCount
            }
            deferredByteCount += entry.deferredByteCount
        }
    }

    private let state: Locked<State>

    /// Creates a recorder.
    ///
    /// - Parameters:
    ///   - capacity: The most entries kept, 1,000 by default; older entries are dropped and
    ///     counted in ``droppedCount``. A value below 1 keeps one.
    ///   - maxStreamMessagesPerEntry: The most server-sent events, JSON lines or WebSocket
    ///     messages kept per entry, the first ones, 100 by default; later ones are counted in the entry's
    ///     `_droppedStreamMessages`.
    ///   - maximumDeferredBytes: The most bytes the events of entries not made yet may keep
    ///     alive together, 32 MiB by default; past it an entry is made at once rather than when
    ///     a document is built. A value below 0 is 0: every entry is made at once.
    public init(
        capacity: Int = HARRecorder.defaultCapacity,
        maxStreamMessagesPerEntry: Int = HARRecorder.defaultMaxStreamMessagesPerEntry,
        maximumDeferredBytes: Int = HARRecorder.defaultMaximumDeferredBytes
    ) {
        let entries = BoundedQueue<HARRecordedEntry>(capacity: max(1, capacity))
        self.capacity = entries.capacity
        self.maxStreamMessagesPerEntry = max(0, maxStreamMessagesPerEntry)
        self.maximumDeferredBytes = max(0, maximumDeferredBytes)
        state = Locked(State(entries: entries))
    }

    /// Terminal, retried and message events: the only ones an archive holds.
    public var handledEventNames: Set<HTTPEvent.Name>? {
        HTTPEvent.Name.terminal.union([.requestRetried, .responseMessage])
    }

    /// Stores terminal and retried events for their entries, and keeps the message events of
    /// streamed responses for their entry; ignores the others. Redacts nothing (but see the
    /// type's notes on events holding large raw bodies).
    ///
    /// - Parameter event: The event the dispatcher delivers, on the task that emitted it.
    public func handle(_ event: HTTPEvent) {
        if event.name == .responseMessage {
            keep(event)
            return
        }
        guard event.name.isTerminal || event.name == .requestRetried else { return }
        let messages = event.isStreamed ? takeMessages(of: event) : []
        let isLight = Self.rawBodyByteCount(of: event) <= Self.maximumDeferredBodyBytes
        if !isLight, let cut = event.withBodiesCut() {
            // A copy of the bytes its entry would show, so the raw bodies are let go and the
            // caller's task redacts nothing. Its entry would weigh as much: deferring it keeps
            // nothing more alive, so it counts nothing against the budget.
            state.withLock { $0.append(.deferred(cut, messages: messages, byteCount: 0)) }
            return
        }
        if isLight {
            // The message events share the exchange's records with `event`: only their own bytes add.
            let byteCount = messages.reduce(event.retainedByteCount) { $0 + $1.retainedMessageByteCount }
            let isDeferred = state.withLock { state in
                guard state.deferredByteCount - state.byteCountFreedByAppending + byteCount <= maximumDeferredBytes else { return false }
                state.append(.deferred(event, messages: messages, byteCount: byteCount))
                return true
            }
            if isDeferred { return }
        }
        // Made outside the lock: redacting it may take a while.
        let entry = HARRecordedEntry.exchange(HARExchange(event: event, messageEvents: messages))
        state.withLock { $0.append(entry) }
    }

    /// The body bytes `event` holds raw, which its entry, once made, would hold redacted and
    /// cut to the policy's cap: what a deferred entry keeps beyond a made one. Reads sizes
    /// only; redacts and parses nothing.
    ///
    /// A request body counts as the bytes sent: all held when it was given whole, a bound on
    /// the first bytes held when it was streamed. A streamed response counts nothing: its
    /// event holds only the policy's capture of it, as the entry would. The rest of the event
    /// is not counted (see the type's notes). A WebSocket connection counts nothing: its
    /// byte counts are its messages', which its message events hold as the policy captured them.
    static func rawBodyByteCount(of event: HTTPEvent) -> Int {
        guard event.webSocket == nil else { return 0 }
        return event.requestBodyByteCount + (event.isStreamed ? 0 : event.responseBodyByteCount ?? 0)
    }

    /// Keeps a message event for its entry, unless the entry has its fill. With ``capacity``
    /// streams open already (or whose end was lost), the one whose first message is oldest is
    /// forgotten: its entry, if it comes, counts those messages as dropped.
    private func keep(_ event: HTTPEvent) {
        guard maxStreamMessagesPerEntry > 0 else { return }
        state.withLock { state in
            let id = event.requestID
            if state.openStreams[id] == nil, state.openStreams.count >= capacity,
                let oldest = state.openStreams.min(by: { ($0.value.events.first?.timestamp ?? .distantPast) < ($1.value.events.first?.timestamp ?? .distantPast) }) {
                state.openStreams[oldest.key] = nil
            }
            state.openStreams[id, default: OpenStream()].keep(event, upTo: maxStreamMessagesPerEntry)
        }
    }

    /// The message events kept for the attempt an ending event describes; those of that
    /// attempt and earlier ones are forgotten, and all of them at the exchange's end.
    private func takeMessages(of event: HTTPEvent) -> [HTTPEvent] {
        state.withLock { state in
            let id = event.requestID
            guard let open = state.openStreams[id]?.events else { return [] }
            let rest = event.name.isTerminal ? [] : open.filter { $0.attempt > event.attempt }
            state.openStreams[id] = rest.isEmpty ? nil : OpenStream(events: rest)
            return open.filter { $0.attempt == event.attempt }
        }
    }

    /// The number of entries kept, at most the recorder's capacity.
    public var entryCount: Int { state.withLock { $0.entries.count } }

    /// The number of entries that ended but are not kept, since creation (or the last
    /// ``removeAll()``): the oldest, dropped to stay within the recorder's capacity.
    public var droppedCount: Int { state.withLock { $0.overflowCount } }

    /// Forgets every entry and resets ``droppedCount``; exchanges in flight still become
    /// entries.
    public func removeAll() {
        state.withLock { state in
            state.entries.removeAll()
            state.overflowCount = 0
            state.deferredByteCount = 0
        }
    }

    /// The kept entries as a HAR 1.2 document: UTF-8 JSON, indented, entries sorted by
    /// `startedDateTime`, except that the attempts of a retried request stay together in
    /// attempt order. The same entries always give the same bytes.
    ///
    /// Built on each call, from a copy of the kept entries taken under the lock: outside it,
    /// each entry is made from its event (redacting what the event has not redacted yet) and
    /// the JSON written; costs about the size of the document. Events still in the
    /// dispatcher's queues are not in it: call ``/HTTPCoreObservation/HTTPEventDispatcher/flush()`` first to
    /// include every exchange that has ended.
    ///
    /// - Returns: The HAR document's UTF-8 JSON bytes.
    public func harDocument() -> Data {
        let (recorded, overflowCount) = state.withLock { (Array($0.entries), $0.overflowCount) }
        let exchanges = recorded.map(\.exchange)
        let dates = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
        // The attempts of one request stay together, in attempt order, placed at the first
        // one's start (the last attempt's entry starts with the exchange, before the first
        // attempt's); a stable sort keeps the recording order of entries that tie.
        var firstStarts: [HTTPRequest.ID: Date] = [:]
        for exchange in exchanges {
            firstStarts[exchange.requestID] = min(firstStarts[exchange.requestID] ?? exchange.startedAt, exchange.startedAt)
        }
        let entries = exchanges.enumerated()
            .map { (start: firstStarts[$0.element.requestID] ?? $0.element.startedAt, attempt: $0.element.attempt, offset: $0.offset, exchange: $0.element) }
            .sorted { ($0.start, $0.attempt, $0.offset) < ($1.start, $1.attempt, $1.offset) }
            .map { $0.exchange.entry(dates: dates) }
        var comment = "Recorded by HTTPCore's HARRecorder, redacted by the client's HTTPCorePolicy"
        if overflowCount > 0 {
            comment += "; the \(overflowCount) oldest entries were dropped to keep the last \(capacity)"
        }
        comment += "."
        let log: JSONValue = [
            "version": "1.2",
            "creator": ["name": "HTTPCore", "version": .string(Self.creatorVersion)],
            "pages": [],
            "entries": .array(entries),
            "comment": .string(comment),
            "_droppedEntries": .integer(overflowCount),
        ]
        let document: JSONValue = ["log": log]
        return Data(document.harBytes)
    }

    /// Writes ``harDocument()`` to `url`, atomically (replacing any file there).
    ///
    /// - Parameter url: The file to write.
    /// - Throws: What `Data.write(to:options:)` throws: a missing folder, no permission, a
    ///   full disk.
    public func write(to url: URL) throws {
        try harDocument().write(to: url, options: .atomic)
    }
}
