import HTTPCore
import HTTPCoreObservation

/// What a terminal event's step carries, read in one step: the tests of the transports in
/// `Integrations/` (AsyncHTTPClient's, OpenAPI's) compare how exchanges end.
extension HTTPEvent {
    /// The response a terminal event's step carries: a success's, or the head a failure or a
    /// cancellation came after; `nil` for the other steps.
    public var endResponse: Response? {
        switch step {
        case .succeeded(let response, _): response
        case .failed(_, let response, _), .cancelled(let response, _): response
        case .created, .started, .received, .message, .retried: nil
        }
    }

    /// The error of a failed exchange's terminal event; `nil` for the other steps.
    public var endError: HTTPError? {
        guard case .failed(let error, _, _) = step else { return nil }
        return error
    }
}
