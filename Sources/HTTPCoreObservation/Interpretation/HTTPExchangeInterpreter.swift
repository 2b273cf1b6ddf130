import Foundation

/// Something that reads meaning into the exchanges a client observes: the facts of an LLM
/// call, say, derived from its request and response. What it derives rides on the terminal
/// event as an ``HTTPExchangeAttachment``, which sinks render without knowing what it is.
///
/// Use one by adding it to the policy:
///
/// ```swift
/// let policy = HTTPCorePolicy.default.interpreting(MyInterpreter())
/// ```
///
/// Implement ``reading(for:)``: return a reading for the requests the interpreter has
/// something to say about, `nil` for the rest. A client asks once per exchange, on the
/// request's task, and only when an observer takes terminal events, so an exchange nobody
/// observes costs nothing; keep the decision cheap (a method and a host, not a body).
///
/// Interpreters compare by value, so that two policies with the same interpreters are equal.
public protocol HTTPExchangeInterpreter: Sendable, Hashable {
    /// Begins reading the exchange of `request`, as it goes out.
    ///
    /// - Parameter request: The request as it goes out, after the middlewares.
    /// - Returns: The reading of this exchange, or `nil` when the interpreter has nothing to
    ///   say about it.
    func reading(for request: HTTPRequest) -> (any HTTPExchangeReading)?

    /// The text one message of a streamed response adds to the answer the stream carried,
    /// when the interpreter knows the message's shape: sinks show a stream as that answer.
    /// The default knows no shape.
    ///
    /// - Parameters:
    ///   - eventType: The server-sent event's type, `nil` for a JSON line or an untyped event.
    ///   - data: The message's data, as a sink shows it (masked).
    /// A stream's shape is that of its messages that add text; a message no interpreter reads,
    /// in such a stream, is a line of data of the answer, in its place. So return an empty text,
    /// not `nil`, for a message of your shape that adds none (a start, a ping, an end marker).
    ///
    /// - Returns: The shape's name and the text the message adds (possibly empty), or `nil`
    ///   when the message is in no shape the interpreter knows.
    func streamAnswerText(eventType: String?, data: Data) -> (shape: String, text: String)?
}

extension HTTPExchangeInterpreter {
    /// Knows no shape: `nil`.
    public func streamAnswerText(eventType: String?, data: Data) -> (shape: String, text: String)? { nil }

    /// The interpreter as a hashable value, for a policy's equality.
    package var hashable: AnyHashable { AnyHashable(self) }
}
