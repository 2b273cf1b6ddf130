extension HTTPEvent {
    /// What the policy's interpreters (``HTTPCorePolicy/interpreters``) derived from the
    /// exchange, on its terminal event; empty on every other event, for exchanges no
    /// interpreter read, and without interpreters.
    public var attachments: [any HTTPExchangeAttachment] { storage.attachments }

    /// The first attachment of type `type`, or `nil` when there is none.
    ///
    /// - Parameter type: The attachment's type.
    /// - Returns: The attachment.
    public func attachment<Attachment: HTTPExchangeAttachment>(_ type: Attachment.Type) -> Attachment? {
        for attachment in storage.attachments {
            if let found = attachment as? Attachment { return found }
        }
        return nil
    }

    /// The notes of ``attachments``, masked by `redactor`, for a sink to show.
    package func notes(redactedBy redactor: Redactor) -> [HTTPExchangeNote] {
        storage.attachments.map { $0.note(redactedBy: redactor) }
    }

    /// The interpreters of the policy the event was made under, which read a stream's answer.
    package var interpreters: [any HTTPExchangeInterpreter] { requestRecord.policy.interpreters }
}

/// An attachment that can tell the bytes it keeps alive, for the accounting of observers that
/// hold events (``HTTPEvent/retainedByteCount``).
package protocol RetainedBytesCounting {
    /// Bytes it keeps alive, without deriving anything.
    var retainedByteCount: Int { get }
}
