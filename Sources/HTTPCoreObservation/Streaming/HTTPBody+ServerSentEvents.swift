import HTTPCore

extension HTTPBody {
    /// The body read as server-sent events (`text/event-stream`), one event at a time, each
    /// of at most `maximumEventBytes`.
    ///
    /// ```swift
    /// let (head, body) = try await client.send(request, body: nil)
    /// for try await event in body.serverSentEvents() {
    ///     if event.event == "done" { break }
    ///     print(event.id ?? "-", event.data)
    /// }
    /// ```
    ///
    /// The events are split by the parser the observers use, by the WHATWG HTML rules: lines
    /// end with CRLF, LF or CR, wherever the chunks break; `data:` lines are joined with line
    /// feeds; lines starting with `:` are comments; an event ends at a blank line, and one
    /// without data is not dispatched. An unfinished event at the end of the body is
    /// discarded, as the standard says: a body that ends without the blank line after its last
    /// event ends the sequence without that event.
    ///
    /// Reading pulls the body: a chunk is read only when the events of the one before were
    /// all taken, so a slow consumer slows the transfer (no task, no buffer of its own beyond
    /// the events of one chunk and the event being read).
    ///
    /// - Parameter maximumEventBytes: The most bytes of an event's data, and of its `event:`
    ///   or `id:` value: 1 MiB by default. A longer event fails the sequence as soon as it is
    ///   over, so memory stays bounded whatever the server sends; a longer comment or unknown
    ///   field is skipped, as any comment is.
    /// - Returns: The events, in the order they arrived. Iterating throws
    ///   ``/HTTPCore/HTTPError`` ``/HTTPCore/HTTPError/Code/responseTooLarge`` naming the limit
    ///   for a longer event (after the events before it), and what the body throws (an
    ///   ``/HTTPCore/HTTPError`` such as `connection_lost` when the transfer was cut), as it is.
    public func serverSentEvents(maximumEventBytes: Int = 1 << 20) -> Messages<ServerSentEvent> {
        Messages(body: self, kind: .serverSentEvent, maxBytes: maximumEventBytes) { message in
            ServerSentEvent(
                event: message.eventType.flatMap { $0.isEmpty ? nil : $0 }, id: message.eventID,
                data: String(decoding: message.data, as: UTF8.self)
            )
        }
    }
}
