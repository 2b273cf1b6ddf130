import HTTPCoreConcurrency
/// The error of an exchange or attempt and its policy-exposed form: a transport message with
/// the redactor's text rules applied, computed once, on first read, off the request path.
final class ErrorRecord: Sendable {
    let error: HTTPError
    let redactor: Redactor
    private let cache = Locked<HTTPError?>(nil)

    init(error: HTTPError, redactor: Redactor) {
        self.error = error
        self.redactor = redactor
    }

    /// Whether the scrubbed form was computed yet.
    var isExposed: Bool { cache.withLock { $0 != nil } }

    var exposed: HTTPError {
        guard let message = error.message else { return error }
        return cache.value { .transport(error.code, message: redactor.redactedText(message)) }
    }
}
