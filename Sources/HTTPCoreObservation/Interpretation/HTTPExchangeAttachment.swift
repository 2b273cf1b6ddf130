/// What an ``HTTPExchangeReading`` derived from an exchange, carried by its terminal event
/// (``HTTPEvent/attachments``) and looked up by its type (``HTTPEvent/attachment(_:)``).
///
/// Sinks render it without knowing what it is, through ``note(redactedBy:)``: dev-see and the
/// console show its summary, HAR and Loki its attributes. Its own module gives typed access
/// (for the GenAI facts, `event.genAI`).
///
/// Implement ``note(redactedBy:)``; derive what it needs on the first call, not when the
/// attachment is made, so the request's task does not pay for it.
public protocol HTTPExchangeAttachment: Sendable {
    /// What a sink shows of the attachment, its texts masked by `redactor`.
    ///
    /// The client policy's redactor is the one that masks what a sink shows of an exchange:
    /// the reading applies it as it derives the attachment (see
    /// ``HTTPExchangeReading/finish(request:response:error:policy:)``), and the sinks ask for
    /// the note with ``/HTTPCoreRedaction/Redactor/none``.
    ///
    /// - Parameter redactor: A redactor to mask the texts with on top of the policy's;
    ///   ``/HTTPCoreRedaction/Redactor/none`` adds nothing.
    /// - Returns: The note to show.
    func note(redactedBy redactor: Redactor) -> HTTPExchangeNote
}
