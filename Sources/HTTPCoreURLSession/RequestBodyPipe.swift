import Foundation
import HTTPCore

/// A request body on its way to a task that reads it synchronously: a task reads the
/// `HTTPBody` into a buffer of about `capacity` bytes, and ``read(into:maxLength:)`` takes
/// from it, blocking until bytes arrive.
///
/// The producer waits while `capacity` bytes or more are unread, so the body is never held
/// whole: memory stays at `capacity` plus one chunk.
final class RequestBodyPipe: @unchecked Sendable {
    private struct State {
        var buffer: [UInt8] = []
        /// Where unread bytes start in `buffer`.
        var readIndex = 0
        var isBodyFinished = false
        var failure: (any Error)?
        var isAborted = false
        var producer: Task<Void, Never>?
        var waitingProducer: CheckedContinuation<Void, any Error>?

        var unread: Int { buffer.count - readIndex }
    }

    private let body: HTTPBody
    private let capacity: Int
    /// Guards `state`; `read` waits on it for bytes. Every access to `state` holds it.
    private let condition = NSCondition()
    private var state = State()

    init(body: HTTPBody, capacity: Int = 1 << 20) {
        self.body = body
        self.capacity = max(1, capacity)
    }

    /// The body's own failure, or `CancellationError` after ``abort()``; `nil` while it is
    /// fine or once it ended.
    var failure: (any Error)? {
        condition.lock()
        defer { condition.unlock() }
        return state.failure
    }

    /// Whether a read can still return bytes: false only once every byte was read.
    var hasBytesAvailable: Bool {
        condition.lock()
        defer { condition.unlock() }
        return !(state.isBodyFinished && state.failure == nil && state.unread == 0)
    }

    /// Starts reading the body; once.
    func start() {
        condition.lock()
        defer { condition.unlock() }
        guard state.producer == nil, !state.isAborted, !state.isBodyFinished else { return }
        let body = body
        state.producer = Task { [self] in
            do {
                for try await chunk in body { try await append(chunk) }
                end(failure: nil)
            } catch {
                end(failure: error)
            }
        }
    }

    /// Stops the upload: wakes a blocked read (which then fails) and cancels the producer.
    func abort() {
        condition.lock()
        guard !state.isAborted else {
            condition.unlock()
            return
        }
        state.isAborted = true
        if !state.isBodyFinished, state.failure == nil { state.failure = CancellationError() }
        let producer = state.producer
        let waiting = state.waitingProducer
        state.waitingProducer = nil
        condition.broadcast()
        condition.unlock()
        producer?.cancel()
        waiting?.resume(throwing: CancellationError())
    }

    /// Copies up to `maxLength` bytes into `buffer`, waiting until some are there: the count,
    /// 0 at the end of the body, -1 when it failed or was aborted.
    func read(into buffer: UnsafeMutablePointer<UInt8>, maxLength: Int) -> Int {
        condition.lock()
        while state.unread == 0, !state.isBodyFinished, state.failure == nil {
            condition.wait()
        }
        if state.failure != nil || state.unread == 0 {
            let failed = state.failure != nil
            condition.unlock()
            return failed ? -1 : 0
        }
        let count = min(maxLength, state.unread)
        state.buffer.withUnsafeBufferPointer { bytes in
            buffer.update(from: bytes.baseAddress! + state.readIndex, count: count)
        }
        state.readIndex += count
        if state.readIndex == state.buffer.count {
            state.buffer.removeAll(keepingCapacity: true)
            state.readIndex = 0
        }
        var wake: CheckedContinuation<Void, any Error>?
        if state.unread <= capacity / 2 {
            wake = state.waitingProducer
            state.waitingProducer = nil
        }
        condition.unlock()
        wake?.resume()
        return count
    }

    private func append(_ chunk: HTTPBody.ByteChunk) async throws {
        guard !chunk.isEmpty else { return }
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            condition.lock()
            guard !state.isAborted else {
                condition.unlock()
                continuation.resume(throwing: CancellationError())
                return
            }
            if state.readIndex > 0, state.readIndex >= state.buffer.count / 2 {
                state.buffer.removeFirst(state.readIndex)
                state.readIndex = 0
            }
            state.buffer.append(contentsOf: chunk)
            condition.broadcast()
            if state.unread < capacity {
                condition.unlock()
                continuation.resume()
            } else {
                state.waitingProducer = continuation
                condition.unlock()
            }
        }
    }

    private func end(failure: (any Error)?) {
        condition.lock()
        defer { condition.unlock() }
        if !state.isAborted {
            state.isBodyFinished = failure == nil
            state.failure = failure
        }
        state.producer = nil
        condition.broadcast()
    }
}
