import Dispatch
import Foundation

/// What the steps of one exchange through the middlewares share.
///
/// Not nested in the generic ``HTTPTransportClient``: a type nested there has metadata per
/// transport, which unspecialized code looks up at run time each time it copies or destroys
/// one (about 330 instructions a look-up).
struct MiddlewareExchange: Sendable {
    /// The caller's request, checked, whose id and timeout every attempt keeps.
    let request: HTTPRequest
    /// The length of the body the caller's request was checked with: a streamed body's, or
    /// its ``/HTTPCore/HTTPRequest/body``'s.
    let bodyLength: HTTPBody.Length
    /// Its record, which the `created` event carried, and whose correlation id every
    /// attempt keeps; `nil` when the exchange is not observed (nobody observed as it
    /// began): its events are then not emitted, and its attempts only counted.
    let created: RequestRecord?
    /// What every middleware of the exchange is handed: its deadline and its attempt count.
    let context: HTTPMiddlewareContext
    /// Its attempts, numbered and kept until they are reported.
    let attempts: AttemptLog
    /// Whether each attempt takes its response body whole (``/HTTPCore/HTTPClient/send(_:)``), or
    /// streams it (``/HTTPCore/HTTPClient/send(_:body:)``).
    let buffers: Bool
    /// Whether a streamed attempt's response is shown to the policy's interpreters
    /// (``HTTPCorePolicy/interpreters``): decided once, as the exchange begins.
    let interprets: Bool

    /// An exchange of `request` (recorded as `created` when observed), checked with a body of
    /// `bodyLength` (by default its ``/HTTPCore/HTTPRequest/body``'s), that must be over by `deadline`,
    /// with no attempt yet, its middlewares redacting with the client's `redaction`; `interprets`:
    /// whether interpreters read its attempts.
    init(
        request: HTTPRequest, bodyLength: HTTPBody.Length? = nil, created: RequestRecord?, interprets: Bool = false, deadline: DispatchTime?,
        buffers: Bool, redaction: SharedRedactor
    ) {
        self.request = request
        self.bodyLength = bodyLength ?? .known(Int64(request.body?.count ?? 0))
        self.created = created
        self.interprets = interprets
        self.buffers = buffers
        attempts = AttemptLog()
        context = HTTPMiddlewareContext(deadline: deadline, attempts: attempts, redaction: redaction)
    }
}
