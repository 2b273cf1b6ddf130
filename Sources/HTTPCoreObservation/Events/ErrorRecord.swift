import HTTPCoreConcurrency
/// The error of an exchange or attempt and its policy-exposed form: a transport message with
/// the redactor's text rules applied, computed once, on first read.
final class ErrorRecord: @unchecked Sendable {
    let error: HTTPError
    let redactor: Redactor
    /// The scrubbed error once computed: read and written only under ``LockStripes``' lock for
    /// this record (which makes it `@unchecked Sendable`), so a record is one allocation.
    private var cache: HTTPError?
    /// The redacted ``exposedAddedRequestHeaders`` once computed, under the same lock.
    private var addedRequestHeadersCache: HTTPHeaders?

    init(error: HTTPError, redactor: Redactor) {
        self.error = error
        self.redactor = redactor
    }

    /// Whether the scrubbed form was computed yet.
    var isExposed: Bool { LockStripes.withLock(for: self) { cache != nil } }

    var exposed: HTTPError {
        guard let message = error.message else { return error }
        return LockStripes.field(\.cache, of: self) { .transport(error.code, message: redactor.redactedText(message)) }
    }

    /// The header fields the transport added to the failed attempt's request
    /// (``/HTTPCore/HTTPError/addedRequestHeaders``), redacted; empty when it reported none.
    var exposedAddedRequestHeaders: HTTPHeaders {
        guard !error.addedRequestHeaders.isEmpty else { return [:] }
        return LockStripes.field(\.addedRequestHeadersCache, of: self) { redactor.redactedHeaders(error.addedRequestHeaders) }
    }
}
