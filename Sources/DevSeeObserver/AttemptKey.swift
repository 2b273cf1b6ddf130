import HTTPCore

/// One attempt of one request, as events number them: the key of the attempt starts that
/// ``DevSeeLogger`` keeps until the attempt's log.
struct AttemptKey: Hashable {
    let requestID: HTTPRequest.ID
    let attempt: Int
}
