import Dispatch
@_spi(Transports) import HTTPCore
import HTTPCoreConcurrency

/// The response body of a streaming exchange as the caller reads it, and the end of the
/// exchange: the terminal event once the body ended, failed, outlived the deadline, or was
/// stopped or dropped before its end.
///
/// The body handed out and its iterator hold this object and nothing else does (its timer
/// holds it weakly), so when both are gone its `deinit` ends an exchange not yet ended, as
/// cancelled, and stops the transport's body.
final class StreamedResponse: Sendable {
    /// Reports the end: the bytes the caller read, and the error (`nil` for a success).
    typealias End = @Sendable (_ delivered: Int, _ error: HTTPError?) -> Void

    private struct State {
        var delivered = 0
        /// Set once the end was reported: `nil` for a success, else the error that ended it.
        var outcome: HTTPError??
        var timer: Task<Void, Never>?
    }

    private let inner: HTTPBody
    private let state = Locked(State())
    private let onEnd: End
    private let classify: @Sendable (any Error) -> HTTPError

    init(body inner: HTTPBody, deadline: DispatchTime?, onEnd: @escaping End, classify: @escaping @Sendable (any Error) -> HTTPError) {
        self.inner = inner
        self.onEnd = onEnd
        self.classify = classify
        if let deadline { startTimer(until: deadline) }
    }

    /// The body handed to the caller: one pass over the transport's, through this reader.
    /// Stopping it ends the exchange (see ``close()``).
    var body: HTTPBody {
        HTTPBody(length: inner.length, iterationBehavior: .single, onStop: { [self] in close() }) {
            var iterator = self.inner.makeAsyncIterator()
            return AnyChunks(next: { try await self.next(&iterator) })
        }
    }

    private func next(_ iterator: inout HTTPBody.Iterator) async throws -> HTTPBody.Piece? {
        if let outcome = state.withLock({ $0.outcome }) { throw outcome ?? .cancelled }
        do {
            guard let chunk = try await iterator.nextPiece() else {
                end(nil)
                return nil
            }
            state.withLock { $0.delivered += chunk.count }
            return chunk
        } catch {
            // An end reported meanwhile (the deadline) says why the read broke.
            let error = state.withLock { $0.outcome }.flatMap { $0 } ?? classify(error)
            end(error)
            throw error
        }
    }

    /// The caller stopped the body, or dropped it: a body read to its end (or to its known
    /// length) succeeded, any other is given up and cancelled.
    func close() {
        let isComplete = state.withLock { state in
            if case .known(let length) = inner.length { return Int64(state.delivered) == length }
            return false
        }
        end(isComplete ? nil : .cancelled)
        inner.stopReading()
    }

    deinit {
        close()
    }

    /// Reports the end once, and stops the deadline's timer.
    private func end(_ error: HTTPError?) {
        let report = state.withLock { state -> (delivered: Int, timer: Task<Void, Never>?)? in
            guard state.outcome == nil else { return nil }
            state.outcome = .some(error)
            defer { state.timer = nil }
            return (state.delivered, state.timer)
        }
        guard let report else { return }
        report.timer?.cancel()
        onEnd(report.delivered, error)
    }

    /// At `deadline`, ends the exchange as timed out and stops the transport's body, so that a
    /// read waiting for it wakes with ``/HTTPCore/HTTPError/timeout``.
    private func startTimer(until deadline: DispatchTime) {
        let timer = Task { [weak self] in
            let now = MonotonicClock.nanoseconds()
            let target = deadline.uptimeNanoseconds
            if target > now {
                do { try await Task.sleep(nanoseconds: target - now) } catch { return }
            }
            guard let self else { return }
            end(.timeout)
            inner.stopReading()
        }
        state.withLock { state in
            if state.outcome == nil { state.timer = timer } else { timer.cancel() }
        }
    }
}
