import Foundation
import HTTPCore

/// What a client's body tap takes, through ``GenAIReading``, of a recognised LLM call's streamed response, on the reading
/// task, to be read into facts only when they are first asked for (``response``, by a sink on
/// its worker): each complete message, with when it arrived, kept unread; or a body that is
/// not a stream of messages (a JSON answer, an error body), kept until it ends.
///
/// The reading task pays for keeping, not for parsing: a message's JSON costs microseconds to
/// parse, copying its bytes a few nanoseconds. Memory stays bounded: the messages kept unread
/// take at most ``unreadMessageBudget`` bytes, and when the next would pass it, those kept
/// are read then, on the reading task, and dropped, so only a very long stream pays for
/// reading as it passes; a kept body is dropped once it passes
/// ``GenAIRecognizer/maximumBodyBytes``, the bound of a body read whole, so that a JSON
/// answer gives the same facts streamed as buffered.
struct GenAIResponseTap: Sendable {
    /// The most bytes of messages a stream's tap keeps unread: 256 KiB, about a thousand
    /// OpenAI chunks or two thousand Anthropic deltas.
    static let unreadMessageBudget = 256 << 10

    /// What was read so far: the response's headers, and the messages read when the budget
    /// was passed.
    private var reader: GenAIResponseReader
    /// The messages not read yet, in arrival order after those ``reader`` read.
    private var unread = GenAIUnreadMessages(budget: GenAIResponseTap.unreadMessageBudget)
    /// When the attempt that got the response began, in nanoseconds of uptime: arrival times
    /// count from it, so the time to the first chunk is the request's, not the exchange's.
    private let began: UInt64
    /// The body so far, when it is kept: `nil` for a stream of messages, and once it outgrew
    /// the bound.
    private var body: Data?

    /// A tap of the response to the call `recognition` describes, whose head carried
    /// `headers`, in an attempt that began at `began` (uptime nanoseconds). `keepsBody`:
    /// whether the body is kept whole, because it is not read as messages.
    init(_ recognition: GenAIRecognition, headers: HTTPHeaders, began: UInt64, keepsBody: Bool) {
        reader = GenAIResponseReader(recognition)
        reader.read(headers: headers)
        self.began = began
        body = keepsBody ? Data() : nil
    }

    /// Whether a body of `contentType`, not read as messages, is worth keeping: a JSON answer
    /// or error, or one that does not say (an error body may not).
    static func keepsBody(ofType contentType: String?) -> Bool {
        guard let contentType else { return true }
        return contentType.range(of: "json", options: .caseInsensitive) != nil
    }

    /// Keeps a chunk of a body that is kept, while it fits.
    mutating func keep(_ chunk: ArraySlice<UInt8>) {
        guard body != nil else { return }
        if body!.count + chunk.count > GenAIRecognizer.maximumBodyBytes {
            body = nil
        } else {
            body!.append(contentsOf: chunk)
        }
    }

    /// Takes a complete message that arrived at `uptime` (nanoseconds), to be read with the
    /// others; it is read now, with those kept before it, only when keeping it would pass the
    /// budget. A message the parser cut short, or one longer than
    /// ``GenAIRecognizer/maximumMessageBytes`` (kept whole because the policy's messages
    /// are longer), is counted but read as nothing: its JSON, cut, would be misread, and
    /// reading a longer one would cost unbounded time.
    mutating func read(eventType: String?, data: Data, isTruncated: Bool, arrivedAt uptime: UInt64) {
        let isReadable = !isTruncated && data.count <= GenAIRecognizer.maximumMessageBytes
        let data = isReadable ? data : Data()
        if unread.keep(eventType: eventType, data: data, arrivedAt: uptime) { return }
        readUnread(into: &reader)
        unread.removeAll()
        if unread.keep(eventType: eventType, data: data, arrivedAt: uptime) { return }
        reader.read(eventType: eventType, data: data, arrivedAfter: seconds(since: uptime))
    }

    /// The messages kept unread.
    var unreadMessageCount: Int { unread.count }

    /// The messages read into facts so far, on the reading task.
    var readMessageCount: Int { reader.messageCount }

    /// Bytes the messages kept unread keep, as `GenAIUnreadMessages` counts them: at most
    /// ``unreadMessageBudget`` (their buffers' spare capacity is not counted).
    var unreadRetainedByteCount: Int { unread.retainedByteCount }

    /// Bytes it keeps alive, without reading anything: the kept body, the messages kept
    /// unread, and the strings and arrays of what was read.
    var retainedByteCount: Int {
        (body?.count ?? 0) + unreadRetainedByteCount + reader.retainedByteCount
    }

    /// What was read so far, the messages kept unread and a kept body included: a body cut
    /// short reads as nothing. Parses what was kept, each time it is asked for.
    var response: GenAIResponse {
        var reader = reader
        readUnread(into: &reader)
        if let body, !body.isEmpty { reader.read(body: body) }
        return reader.response
    }

    /// Reads the messages kept unread into `reader`.
    private func readUnread(into reader: inout GenAIResponseReader) {
        unread.forEach { eventType, data, arrivedAt in
            reader.read(eventType: eventType, data: data, arrivedAfter: seconds(since: arrivedAt))
        }
    }

    /// The seconds from the attempt's start to `uptime` (nanoseconds).
    private func seconds(since uptime: UInt64) -> Double {
        Double(uptime &- began) / 1_000_000_000
    }
}
