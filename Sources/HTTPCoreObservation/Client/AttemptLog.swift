import Foundation
import HTTPCoreConcurrency

/// The attempts of one exchange that runs through middlewares: numbers them, and keeps each
/// ended attempt until it is reported, as retried when another attempt starts or as the
/// outcome of the terminal event.
///
/// A struct around its one lock: its copies (the exchange's, each middleware context's) share
/// that lock's state, and an exchange allocates it once.
struct AttemptLog: HTTPMiddlewareAttemptCounter {
    /// One ended attempt and what it gave.
    struct Attempt: Sendable {
        let number: Int
        let request: RequestRecord
        /// The response, as its events show it; `nil` when the attempt failed.
        let response: ResponseRecord?
        /// Why the attempt failed; `nil` when a response came. Its events need no more of the
        /// result: keeping the whole `HTTPResponse` here would copy it each time the attempt is
        /// stored or handed over.
        let error: HTTPError?
        let startedAt: Date
        let ended: (date: Date, durationMilliseconds: Double)
        /// What went through a streaming attempt's bodies; `nil` for a buffered attempt.
        var taps: BodyTaps? = nil

        /// The attempt's start and end, as its events carry them.
        var timing: HTTPEvent.AttemptTiming { HTTPEvent.AttemptTiming(startedAt: startedAt, ended: ended) }
    }

    private struct State {
        var started = 0
        /// The ended attempt with the highest number, which a retry of the same request and
        /// the terminal event describe. Held once: when it is also unreported (the usual case,
        /// one attempt that ends the exchange), ``lastIsUnreported`` says so instead of a copy.
        var last: Attempt?
        /// Whether ``last`` is yet to be reported.
        var lastIsUnreported = false
        /// Where ``last`` stands among the unreported attempts, in the order they ended: how
        /// many of ``otherUnreported`` ended before it.
        var lastPosition = 0
        /// The ended attempts not yet reported other than ``last``, in the order they ended.
        var otherUnreported: [Attempt] = []

        /// Records an ended attempt, unreported.
        mutating func add(_ attempt: Attempt) {
            guard attempt.number >= (last?.number ?? 0) else {
                otherUnreported.append(attempt)
                return
            }
            if lastIsUnreported, let superseded = last {
                otherUnreported.insert(superseded, at: lastPosition)
            }
            last = attempt
            lastIsUnreported = true
            lastPosition = otherUnreported.count
        }

        /// Takes the ended attempts not yet reported, in the order they ended, leaving out
        /// the attempt numbered `excluded`.
        mutating func takeUnreported(excluding excluded: Int? = nil) -> [Attempt] {
            var taken = otherUnreported
            otherUnreported = []
            if lastIsUnreported, let last {
                taken.insert(last, at: lastPosition)
                lastIsUnreported = false
            }
            guard let excluded else { return taken }
            return taken.filter { $0.number != excluded }
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
        state.withLock { $0.add(attempt) }
    }

    /// Closes the log: the last attempt, which the terminal event describes, and the other
    /// ended attempts not yet reported (attempts a middleware ran side by side).
    func finish() -> (last: Attempt?, retried: [Attempt]) {
        state.withLock { state in
            let last = state.last
            // The last attempt alone, the usual end, leaves nothing to filter.
            if state.otherUnreported.isEmpty {
                state.lastIsUnreported = false
                return (last, [])
            }
            return (last, state.takeUnreported(excluding: last?.number))
        }
    }
}
