import Foundation
import HTTPCoreConcurrency

/// The attempts of one exchange that runs through middlewares: numbers them, and keeps each
/// ended attempt until it is reported, as retried when another attempt starts or as the
/// outcome of the terminal event.
///
/// A struct around its one lock: its copies (the exchange's, each middleware context's) share
/// that lock's state, and an exchange allocates it once.
struct AttemptLog: Sendable {
    /// One ended attempt and what it gave.
    struct Attempt: Sendable {
        let number: Int
        let request: RequestRecord
        /// The response, as its events show it; `nil` when the attempt failed.
        let response: ResponseRecord?
        let result: Result<HTTPResponse, HTTPError>
        let startedAt: Date
        let ended: (date: Date, durationMilliseconds: Double)
        /// What went through a streaming attempt's bodies; `nil` for a buffered attempt.
        var taps: BodyTaps? = nil

        /// The attempt's start and end, as its events carry them.
        var timing: HTTPEvent.AttemptTiming { HTTPEvent.AttemptTiming(startedAt: startedAt, ended: ended) }
    }

    private struct State {
        var started = 0
        /// The oldest ended attempt not yet reported: held here, not in an array, so an
        /// exchange of one attempt allocates none.
        var firstUnreported: Attempt?
        /// The ended attempts not yet reported after ``firstUnreported``, oldest first.
        var moreUnreported: [Attempt] = []
        var last: Attempt?

        /// Takes the ended attempts not yet reported, oldest first.
        mutating func takeUnreported() -> [Attempt] {
            guard let first = firstUnreported else { return [] }
            defer {
                firstUnreported = nil
                moreUnreported.removeAll()
            }
            return [first] + moreUnreported
        }
    }

    private let state = Locked(State())

    /// Whether an attempt has begun.
    var hasBegun: Bool { startedCount > 0 }

    /// How many attempts have begun.
    var startedCount: Int { state.withLock { $0.started } }

    /// Numbers a new attempt and hands over the ended attempts not yet reported: each is
    /// followed by this one, so each was retried. `latest`: the request record of the attempt
    /// that ended last (the highest number), which a retry of the same request carries too.
    func begin() -> (number: Int, retried: [Attempt], latest: RequestRecord?) {
        state.withLock { state in
            state.started += 1
            return (state.started, state.takeUnreported(), state.last?.request)
        }
    }

    /// Records an ended attempt.
    func end(_ attempt: Attempt) {
        state.withLock { state in
            if state.firstUnreported == nil {
                state.firstUnreported = attempt
            } else {
                state.moreUnreported.append(attempt)
            }
            if attempt.number >= (state.last?.number ?? 0) { state.last = attempt }
        }
    }

    /// Closes the log: the last attempt, which the terminal event describes, and the other
    /// ended attempts not yet reported (attempts a middleware ran side by side).
    func finish() -> (last: Attempt?, retried: [Attempt]) {
        state.withLock { state in
            let last = state.last
            // The last attempt alone, the usual end, leaves nothing to filter.
            if state.moreUnreported.isEmpty, state.firstUnreported?.number == last?.number {
                state.firstUnreported = nil
                return (last, [])
            }
            return (last, state.takeUnreported().filter { $0.number != last?.number })
        }
    }
}
