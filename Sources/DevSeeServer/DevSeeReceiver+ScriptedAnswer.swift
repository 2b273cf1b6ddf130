import Foundation
import HTTPCoreLoopback

extension DevSeeReceiver {
    /// An answer the receiver gives to one upcoming `POST /api/logs` instead of (or before)
    /// its normal handling, to test how a client copes with a failing server.
    public enum ScriptedAnswer: Sendable, Hashable {
        /// Answers this status with a Fastify-style JSON error body; the log is not stored.
        case status(Int)
        /// Answers 429 with `Retry-After: retryAfter` (seconds); the log is not stored.
        case tooManyRequests(retryAfter: Int)
        /// Waits this many seconds (cut short by `stop()`), then handles the request normally,
        /// so a valid log is stored only after the wait.
        case delay(TimeInterval)
        /// Waits until the gate opens (``DevSeeReceiver/makeGate()``), then handles the request
        /// normally: a log held in flight, with no timing. `stop()` ends the wait with a reset.
        case held(LoopbackGate)
        /// Resets the connection without answering; the log is not stored.
        case reset
        /// Answers this status, content type and body verbatim, for example invalid JSON or an
        /// HTML error page; the log is not stored.
        case body(status: Int, contentType: String, body: String)
    }
}
