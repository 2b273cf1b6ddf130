import HTTPCoreConcurrency

extension LoopbackHTTPServer {
    /// Answers requests for `path` (any method) with `responses` in order, one per request;
    /// once they are used up, the last one answers every further request.
    ///
    /// For retry tests: `route("/flaky", answering: [.text("busy", status: 503), .text("ok")])`.
    public func route(_ path: String, answering responses: [LoopbackResponse]) {
        precondition(!responses.isEmpty, "route(_:answering:) needs at least one response")
        let served = Locked(0)
        route(path) { _ in
            let index = served.withLock { count in
                defer { count += 1 }
                return min(count, responses.count - 1)
            }
            return responses[index]
        }
    }
}
