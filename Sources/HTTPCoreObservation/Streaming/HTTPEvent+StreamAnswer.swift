import Foundation

extension HTTPEvent {
    /// The answer a streamed exchange's response carried (``StreamAnswer``), read from its
    /// body as the policy exposed it and masked as one text by the policy's redactor, read by
    /// the policy's interpreters; `nil` for an exchange that did not stream, before a
    /// response, or without a complete message. Reading it redacts the response's body and
    /// headers.
    package var streamAnswer: StreamAnswer? {
        guard isStreamed, let response, let body = response.body else { return nil }
        return StreamAnswer(
            body: body, contentType: response.headers["Content-Type"], isBodyTruncated: response.isBodyTruncated,
            redactedBy: redactor, readBy: interpreters
        )
    }
}
