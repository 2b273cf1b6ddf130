import Foundation

/// The reading of one exchange by an ``HTTPExchangeInterpreter``: it is shown what the
/// exchange carried, as it passes, and tells at the end what it derived.
///
/// Implement ``finish(request:response:error:policy:)``, and the `read` methods whose input
/// it needs. A client calls them in order, on the task that reads the response:
/// ``readHead(_:carriesMessages:)`` once a streamed response's head arrived, then
/// ``readChunk(_:)`` for each chunk of its body and ``readMessage(eventType:data:isTruncated:secondsSinceAttemptBegan:)``
/// for each server-sent event or JSON line, then ``finish(request:response:error:policy:)``
/// once, as the terminal event is built. A buffered call is read in ``finish(request:response:error:policy:)``
/// alone, from its whole response.
///
/// The reading task pays for what a reading does: keep the bytes it needs, bounded, and
/// parse them when its attachment is first read (a sink does that, on its worker), not as
/// they pass. A retry or a redirect reads a fresh copy of the reading, from its start.
public protocol HTTPExchangeReading: Sendable {
    /// Reads the head of a streamed response, before any of its body.
    ///
    /// - Parameters:
    ///   - head: The response head.
    ///   - carriesMessages: Whether the body is read as server-sent events or JSON lines, so
    ///     that ``readMessage(eventType:data:isTruncated:secondsSinceAttemptBegan:)`` follows.
    mutating func readHead(_ head: HTTPResponse.Head, carriesMessages: Bool)

    /// Reads one chunk of a streamed response's body, as it passes.
    ///
    /// - Parameter chunk: The chunk's bytes; copy what you keep.
    mutating func readChunk(_ chunk: ArraySlice<UInt8>)

    /// Reads one complete server-sent event or JSON line of a streamed response.
    ///
    /// - Parameters:
    ///   - eventType: The server-sent event's type; `nil` for a JSON line or an untyped event.
    ///   - data: The message's data, raw (not masked), at most
    ///     ``HTTPExchangeReadingLimits/maximumMessageBytes`` of it.
    ///   - isTruncated: Whether `data` was cut at that bound.
    ///   - secondsSinceAttemptBegan: When it arrived, counted from the attempt's start.
    mutating func readMessage(eventType: String?, data: Data, isTruncated: Bool, secondsSinceAttemptBegan: Double)

    /// Tells what the exchange came to, once, as its terminal event is built.
    ///
    /// - Parameters:
    ///   - request: The request as it went out.
    ///   - response: A buffered call's whole response, a streamed call's head with an empty
    ///     body (its body was read through ``readChunk(_:)``), or `nil` when none came.
    ///   - error: The error the exchange ended with, if any.
    ///   - policy: The client's policy; mask what the attachment shows with its redactor.
    /// - Returns: What the reading derived, carried by the terminal event
    ///   (``HTTPEvent/attachments``), or `nil` for nothing.
    func finish(request: HTTPRequest, response: HTTPResponse?, error: HTTPError?, policy: HTTPCorePolicy) -> (any HTTPExchangeAttachment)?
}

extension HTTPExchangeReading {
    /// Reads nothing.
    public mutating func readHead(_ head: HTTPResponse.Head, carriesMessages: Bool) {}
    /// Reads nothing.
    public mutating func readChunk(_ chunk: ArraySlice<UInt8>) {}
    /// Reads nothing.
    public mutating func readMessage(eventType: String?, data: Data, isTruncated: Bool, secondsSinceAttemptBegan: Double) {}
}

/// The bounds a client keeps to when it shows an exchange to its readings.
public enum HTTPExchangeReadingLimits {
    /// The most bytes of one message's data a reading is shown: 256 KiB.
    public static let maximumMessageBytes = 256 << 10
}
