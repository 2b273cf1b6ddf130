import Foundation
import HTTPCore

/// One recorded exchange (or retried attempt): what its event exposed, redacted by the
/// client's policy, and its timings. Holds no raw request or response, so its size is
/// bounded by the policy's body cap.
struct HARExchange: Sendable {
    /// `requestSucceeded`, `requestFailed`, `requestCancelled` or `requestRetried`.
    let outcome: HTTPEvent.Name
    let requestID: HTTPRequest.ID
    let attempt: Int
    let correlationID: String?
    let request: HTTPEvent.Request
    /// The size of the body sent, whatever the policy captured.
    let requestBodyByteCount: Int
    let response: HTTPEvent.Response?
    /// The size of the body received; `nil` without a response.
    let responseBodyByteCount: Int?
    let error: HTTPError?
    /// When the exchange (terminal events) or the attempt (retried events) started.
    let startedAt: Date
    let timings: HARTimings

    /// The exchange a terminal or retried event describes, timed by the attempt it carries.
    init(event: HTTPEvent) {
        let startedAt = event.startedAt ?? event.attemptStartedAt ?? event.timestamp
        let duration = event.durationMilliseconds ?? max(0, (event.endedAt ?? event.timestamp).timeIntervalSince(startedAt) * 1000)
        outcome = event.name
        requestID = event.requestID
        attempt = event.attempt
        correlationID = event.correlationID
        request = event.request
        requestBodyByteCount = event.requestBodyByteCount
        response = event.response
        responseBodyByteCount = event.responseBodyByteCount
        error = event.error
        self.startedAt = startedAt
        timings = HARTimings(
            start: startedAt, durationMilliseconds: duration, attemptStart: event.attemptStartedAt,
            attemptDurationMilliseconds: event.attemptDurationMilliseconds
        )
    }
}
