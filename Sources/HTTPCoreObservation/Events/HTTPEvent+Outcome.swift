extension HTTPEvent {
    /// How an exchange, or an attempt that another followed, ended: what a terminal or retried
    /// event carries, as one value to switch over instead of optionals read by name.
    ///
    /// ```swift
    /// switch event.outcome {
    /// case .response(let statusCode)?: counts.record(statusCode)
    /// case .failed(let error, _)?: failures.record(error.code)
    /// case .cancelled?: cancellations.increment()
    /// case nil: break   // created, started, received, message: not an end
    /// }
    /// ```
    ///
    /// Reading it redacts nothing but a failure's transport message, which ``error`` scrubs
    /// once, on first read.
    package enum Outcome: Sendable, Hashable, CustomStringConvertible {
        /// A response ended it, whatever its status: the exchange's (``Name/requestSucceeded``)
        /// or a replaced attempt's (``Name/requestRetried``).
        case response(statusCode: Int)
        /// It failed: no response, or a response whose body failed after its status, which
        /// `statusCode` then gives.
        case failed(HTTPError, statusCode: Int?)
        /// The caller cancelled it (``Name/requestCancelled``); `statusCode` when the status had
        /// arrived.
        case cancelled(statusCode: Int?)

        /// The outcome as the console and log lines show it: `200`, `failed: timed out`,
        /// `cancelled`; a status that came before a failure or a cancellation comes first,
        /// `200, then failed: …`, `200, then cancelled`.
        package var description: String {
            switch self {
            case .response(let statusCode): "\(statusCode)"
            case .failed(let error, let statusCode): "\(statusCode.map { "\($0), then " } ?? "")failed: \(error)"
            case .cancelled(let statusCode): "\(statusCode.map { "\($0), then " } ?? "")cancelled"
            }
        }
    }

    /// The outcome of a terminal or retried event; `nil` for the other events.
    package var outcome: Outcome? {
        switch name {
        case .requestSucceeded:
            statusCode.map { .response(statusCode: $0) }
        case .requestFailed:
            error.map { .failed($0, statusCode: statusCode) }
        case .requestCancelled:
            .cancelled(statusCode: statusCode)
        case .requestRetried:
            if let error { .failed(error, statusCode: statusCode) } else { statusCode.map { .response(statusCode: $0) } }
        default:
            nil
        }
    }
}
