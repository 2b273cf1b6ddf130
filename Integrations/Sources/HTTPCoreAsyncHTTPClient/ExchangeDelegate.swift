import AsyncHTTPClient
import Foundation
@_spi(Transports) import HTTPCore
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1

/// Receives one exchange through AHC's delegate API and hands it over as HTTPCore's: the head
/// to the caller of ``AsyncHTTPClientTransport/perform(_:body:)``, and each body part, on the
/// delegate's event loop (the connection's, unless AHC hops the callbacks to it from another),
/// straight into the body the caller reads.
///
/// No task stands between the connection and the reader: a part reaches the reader as the
/// `ByteBuffer` AHC delivered, not copied (a ``ByteBufferChunk``: ``/HTTPCore/HTTPBody/byteBuffers``
/// yields it as it is, the body's `ArraySlice` sequence copies it once), and the reader's task
/// is the only one woken for it, as with a bare AHC reader. Backpressure is AHC's own: while the body holds `bufferSize` unread bytes the part's
/// future stays pending, and AHC reads no more from the socket until the reader took half.
///
/// For a buffered call (``Delivery/collected(clientLimit:)``) there is no stream: the parts are
/// appended on the event loop, and the caller is resumed once, at the end, with the head and
/// the whole body.
///
/// The exchange ends, and its AHC task with it, when the body ends; when the reader stops
/// early (AHC then cancels the request and closes its connection); or at its deadline, when
/// the transport's ``ExchangeDeadlines`` cancels the task and the exchange fails with
/// ``/HTTPCore/HTTPError/timeout``, head or body.
final class ExchangeDelegate: HTTPClientResponseDelegate, ExchangeDeadlines.Exchange {
    typealias Response = Void

    /// One response head AHC received: the request it answered and its head.
    struct Visit: Sendable {
        let method: NIOHTTP1.HTTPMethod
        let url: URL
        let head: HTTPResponseHead
    }

    /// The response heads AHC received, in order; each one before the last answered with a
    /// redirect that AHC followed.
    ///
    /// The last head is held inline and the redirects in an array made at the first one, so
    /// an exchange without a redirect, nearly every one, allocates nothing for its history.
    struct Visits: Sendable {
        /// The latest head: the exchange's own once AHC followed no further redirect.
        private(set) var last: Visit?
        /// The heads before ``last``, oldest first: the redirects followed.
        private(set) var redirects: [Visit] = []

        /// Adds the head AHC received next.
        mutating func append(_ visit: Visit) {
            if let last { redirects.append(last) }
            last = visit
        }
    }

    /// How the response body reaches the caller.
    enum Delivery: Sendable {
        /// As it comes: the head is handed over as it arrives, and the body streams from the
        /// connection into an ``/HTTPCore/HTTPBody`` the caller reads.
        case streamed
        /// Whole, for a buffered call: the delegate collects the body on its event loop and
        /// hands the head over with it when the exchange ends, so no stream and no second
        /// wake-up of the caller stand between the connection and the bytes. `clientLimit`:
        /// the client's `maximumBufferedResponseBytes`.
        case collected(clientLimit: Int)
    }

    /// The head of the exchange with the body that follows it, and the redirects before it.
    struct Head: Sendable {
        /// The body, as the exchange's ``Delivery`` hands it over.
        enum Body: Sendable {
            /// Still coming from the connection.
            case streamed(HTTPBody)
            /// All of it, `nil` when empty.
            case collected(ByteBuffer?)
        }

        let head: HTTPResponseHead
        let body: Body
        let visits: Visits
    }

    /// The wait of ``AsyncHTTPClientTransport/perform(_:body:)`` for the head: AHC may answer
    /// before the caller waits or after, and only its first answer counts.
    private enum HeadWait {
        /// Nobody waits yet, and no answer came.
        case pending
        /// The caller waits.
        case waiting(UnsafeContinuation<Head, any Error>)
        /// The answer came before the caller waited.
        case answered(Result<Head, HTTPCore.HTTPError>)
        /// The caller has its answer; any later one is dropped.
        case delivered
    }

    /// One pass of the request body under way: the task reading it, and the promise AHC
    /// waits on for its end.
    private struct UploadPass {
        let number: Int
        let sent: EventLoopPromise<Void>
        /// The task, once started: the pass is registered first, so the task finds it.
        var pump: Task<Void, Never>?
    }

    private struct State {
        var visits = Visits()
        var head = HeadWait.pending
        var writer: HTTPBody.Writer?
        var bodyBytes = 0
        /// A collected delivery's head, kept until the body is whole.
        var collectedHead: HTTPResponseHead?
        /// A collected delivery's body so far: the first part as AHC gave it, the others
        /// appended to it.
        var collected: ByteBuffer?
        /// The promise of a body part that found the body full, until the reader drains it.
        var paused: EventLoopPromise<Void>?
        /// Whether the reader drained the body before the full part's promise was made.
        var drainedEarly = false
        /// How many times AHC asked for the request body: more than once after a redirect.
        var uploads = 0
        /// The request body's passes still reading.
        var passes: [UploadPass] = []
        /// Set once the exchange ended: a pass stops reading, and one that AHC asks for later
        /// never starts.
        var isEnded = false
        /// The AHC task, once `execute` returned it.
        var task: AsyncHTTPClient.HTTPClient.Task<Void>?
        /// Whether the deadline passed before the exchange ended.
        var timedOut = false
        /// Whether the AHC task's failure is watched: set once the exchange outlived its start
        /// check (or its deadline), so that ``attach(_:)`` watches a task that comes later.
        var watchesTaskFailure = false
        var ticket: ExchangeDeadlines.Ticket?
    }

    /// The request's method, which tells whether its response has a body.
    private let method: HTTPCore.HTTPMethod
    /// The request's URL, which errors name (its host and port).
    private let url: URL
    private let maximumBytes: Int
    private let delivery: Delivery
    private let deadlines: ExchangeDeadlines
    private let state = NIOLockedValueBox(State())

    /// A delegate for `request`, whose body parts stop after `maximumBytes` with
    /// ``AsyncHTTPClientTransport/streamedResponseTooLarge(limit:url:)`` and reach the caller
    /// as `delivery` says; `deadlines` ends it at `deadline`, when there is one, and checks on
    /// it after the table's `startCheckDelay`.
    init(
        request: HTTPCore.HTTPRequest, maximumBytes: Int, delivery: Delivery,
        deadline: NIODeadline?, watchedBy deadlines: ExchangeDeadlines
    ) {
        // Not the whole request: a copy of it would cost a retain and a release of each part.
        method = request.method
        url = request.url
        self.maximumBytes = maximumBytes
        self.delivery = delivery
        self.deadlines = deadlines
        // Watched before AHC starts, so the entry is gone once the exchange ends.
        let ticket = deadlines.watch(self, until: deadline, checkingStartAt: .now() + deadlines.startCheckDelay)
        state.withLockedValue { $0.ticket = ticket }
    }

    /// Gives the AHC task running the exchange; cancels it at once when the deadline came first,
    /// and watches its failure when the start check came first.
    func attach(_ task: AsyncHTTPClient.HTTPClient.Task<Void>) {
        let (timedOut, watchesFailure) = state.withLockedValue { state in
            state.task = task
            return (state.timedOut, state.watchesTaskFailure)
        }
        if watchesFailure { watchFailure(of: task) }
        if timedOut { task.cancel() }
    }

    func deadlinePassed() {
        let (task, watchesFailure) = state.withLockedValue { state in
            state.timedOut = true
            return (state.task, watchFailureFromNowOn(&state))
        }
        // Cancelling a task AHC failed without telling the delegate tells it nothing either.
        if let task, watchesFailure { watchFailure(of: task) }
        task?.cancel()
    }

    /// The exchange has run for the table's `startCheckDelay` and is not over: its AHC task may
    /// be one AHC failed without telling the delegate (a client already shut down fails the
    /// task it returns), so its failure is watched from now on.
    ///
    /// Watching every task at once would cost each exchange a wake-up of the task's event loop
    /// (a callback added to its future from another thread), about 8,000 instructions with
    /// its loop turn: an exchange over within the delay, as most on a local network are, never
    /// pays it. A send on a client shut down fails after the delay, not at once.
    func startCheckDue() {
        let (task, watchesFailure) = state.withLockedValue { state in
            (state.task, watchFailureFromNowOn(&state))
        }
        if let task, watchesFailure { watchFailure(of: task) }
    }

    /// Marks the task's failure watched, unless the exchange is over or it is already; whether
    /// the caller should watch it.
    private func watchFailureFromNowOn(_ state: inout State) -> Bool {
        guard !state.isEnded, !state.watchesTaskFailure else { return false }
        state.watchesTaskFailure = true
        return true
    }

    /// Fails the head, if it is still awaited, when `task` fails.
    private func watchFailure(of task: AsyncHTTPClient.HTTPClient.Task<Void>) {
        task.futureResult.whenFailure { [self] error in
            taskFailed(error)
        }
    }

    /// HTTPCore's error for what ended the exchange: a timeout when the deadline cancelled it.
    /// A client already shut down never started the exchange, so its error stands even when
    /// the deadline passed before the failure was watched (a timeout under the start check's
    /// delay).
    func failure(_ error: any Error) -> HTTPCore.HTTPError {
        let neverStarted = (error as? HTTPClientError) == .alreadyShutdown
        return !neverStarted && state.withLockedValue { $0.timedOut }
            ? .timeout : HTTPCore.HTTPError(asyncHTTPClientError: error, url: url)
    }

    /// The AHC task failed: fails the head if it is still awaited. For a client already shut
    /// down, whose task fails without telling the delegate.
    func taskFailed(_ error: any Error) {
        answerHead(.failure(failure(error)))
    }

    // MARK: Head

    /// Waits for the response head, or for why it never comes; call it once.
    ///
    /// Not itself cancellable: cancel the AHC task, which then answers.
    func awaitHead() async throws -> Head {
        try await withUnsafeThrowingContinuation { continuation in
            let answer = state.withLockedValue { state -> Result<Head, HTTPCore.HTTPError>? in
                guard case .answered(let answer) = state.head else {
                    state.head = .waiting(continuation)
                    return nil
                }
                state.head = .delivered
                return answer
            }
            if let answer { continuation.resume(with: answer) }
        }
    }

    /// Answers the wait for the head; only the first answer counts.
    private func answerHead(_ answer: Result<Head, HTTPCore.HTTPError>) {
        let waiting = state.withLockedValue { state -> UnsafeContinuation<Head, any Error>? in
            switch state.head {
            case .pending:
                state.head = .answered(answer)
                return nil
            case .waiting(let continuation):
                state.head = .delivered
                return continuation
            case .answered, .delivered:
                return nil
            }
        }
        waiting?.resume(with: answer)
    }

    /// What the exchange leaves when it ends: the streamed body's writer, or the collected
    /// head and body, and the heads AHC received.
    private struct Ending {
        let writer: HTTPBody.Writer?
        let collectedHead: HTTPResponseHead?
        let collected: ByteBuffer?
        let visits: Visits
    }

    /// The exchange ended: stops the request body's upload and the deadline's watch.
    private func end() -> Ending {
        let (ending, passes, ticket) = state.withLockedValue { state in
            defer {
                state.isEnded = true
                state.passes = []
                state.ticket = nil
                state.collected = nil
            }
            let ending = Ending(writer: state.writer, collectedHead: state.collectedHead, collected: state.collected, visits: state.visits)
            return (ending, state.passes, state.ticket)
        }
        if let ticket { deadlines.unwatch(ticket) }
        // The server may answer before it read the whole request body. AHC is done with the
        // body: its pass ends now, whenever its task notices.
        for pass in passes {
            pass.pump?.cancel()
            pass.sent.fail(HTTPClientError.cancelled)
        }
        return ending
    }

    // MARK: Request body

    /// AHC's request body for `body`: uploaded as the connection takes it, chunk by chunk, by a
    /// task that reads `body`. AHC asks for it again to follow a redirect that resends it; a
    /// single-pass body cannot be read twice, so that redirect ends the exchange with the
    /// redirect response itself.
    ///
    /// The task that reads a pass ends with the exchange: cancelled when it ends, cancelled or
    /// failed, and writing nothing more once a producer that ignores the cancellation returns.
    /// A producer that never returns from a read keeps that task waiting inside it, but
    /// nothing of the exchange waits for it: AHC's promise for the pass is failed at the end.
    func upload(_ body: HTTPBody, on eventLoop: any EventLoop) -> AsyncHTTPClient.HTTPClient.Body {
        var length: Int64?
        if case .known(let count) = body.length { length = count }
        return .stream(contentLength: length) { [self] writer in
            let number = state.withLockedValue { state in
                state.uploads += 1
                return state.uploads
            }
            guard number == 1 || body.iterationBehavior == .multiple else {
                return eventLoop.makeFailedFuture(BodyNotResendable())
            }
            let sent = eventLoop.makePromise(of: Void.self)
            let isEnded = state.withLockedValue { state in
                if !state.isEnded { state.passes.append(UploadPass(number: number, sent: sent)) }
                return state.isEnded
            }
            guard !isEnded else {
                sent.fail(HTTPClientError.cancelled)
                return sent.futureResult
            }
            // AHC asks for the body on an event loop, outside any Swift task: the caller's
            // task-locals do not reach this task (nor the body's producer, which it runs), and
            // it runs at the default priority. A producer that needs a task-local value
            // captures it when the body is made.
            let pump = Task {
                do {
                    // A body that came from AHC (a proxied upload) goes out as the buffers it came in.
                    for try await buffer in body.byteBuffers {
                        guard isReading(number) else { return }
                        try await writer.write(.byteBuffer(buffer)).get()
                    }
                    finishPass(number, .success(()))
                } catch {
                    finishPass(number, .failure(error))
                }
            }
            let isUnderWay = state.withLockedValue { state in
                guard let index = state.passes.firstIndex(where: { $0.number == number }) else { return false }
                state.passes[index].pump = pump
                return true
            }
            // The exchange ended (or the pass did) before `end()` could see the task.
            if !isUnderWay { pump.cancel() }
            return sent.futureResult
        }
    }

    /// Whether pass `number` of the request body still reads: the exchange goes on.
    private func isReading(_ number: Int) -> Bool {
        state.withLockedValue { state in state.passes.contains { $0.number == number } }
    }

    /// Pass `number` of the request body read its end, or failed: tells AHC, unless the
    /// exchange ended first.
    private func finishPass(_ number: Int, _ result: Result<Void, any Error>) {
        let pass = state.withLockedValue { state -> UploadPass? in
            guard let index = state.passes.firstIndex(where: { $0.number == number }) else { return nil }
            return state.passes.remove(at: index)
        }
        pass?.sent.completeWith(result)
    }

    /// What the request body's second upload fails with: the redirect is not followed.
    private struct BodyNotResendable: Error {}

    // MARK: Response

    func didVisitURL(task: AsyncHTTPClient.HTTPClient.Task<Void>, _ request: AsyncHTTPClient.HTTPClient.Request, _ head: HTTPResponseHead) {
        let visit = Visit(method: request.method, url: request.url, head: head)
        state.withLockedValue { $0.visits.append(visit) }
    }

    func didReceiveHead(task: AsyncHTTPClient.HTTPClient.Task<Void>, _ head: HTTPResponseHead) -> EventLoopFuture<Void> {
        let length = AsyncHTTPClientTransport.responseLength(method: method, status: Int(head.status.code), headers: head.headers)
        if case .collected(let clientLimit) = delivery {
            if case .known(let count) = length, let exceeded = exceededLimit(count, isDeclared: true, clientLimit: clientLimit) {
                // Refused before reading a byte, as the client's collect refuses a streamed one.
                answerHead(.failure(tooLarge(exceeded, clientLimit: clientLimit)))
                task.cancel()
            } else {
                state.withLockedValue { $0.collectedHead = head }
            }
            return task.eventLoop.makeSucceededVoidFuture()
        }
        let (body, writer) = HTTPBody.makeStream(length: length)
        let visits = state.withLockedValue { state in
            state.writer = writer
            return state.visits
        }
        // Leaving early, as a reader that stops does, makes AHC cancel the request and close
        // its connection, so nothing is left half-read in the pool.
        writer.onTermination { task.cancel() }
        // Before any cancellation below: a failed task fails the head that is still pending.
        answerHead(.success(Head(head: head, body: .streamed(body), visits: visits)))
        if case .known(let count) = length, count > Int64(maximumBytes) {
            // Refused before reading a byte, as `collect(upTo:)` does.
            writer.finish(throwing: AsyncHTTPClientTransport.streamedResponseTooLarge(limit: maximumBytes, url: url))
            task.cancel()
        }
        return task.eventLoop.makeSucceededVoidFuture()
    }

    func didReceiveBodyPart(task: AsyncHTTPClient.HTTPClient.Task<Void>, _ buffer: ByteBuffer) -> EventLoopFuture<Void> {
        if case .collected(let clientLimit) = delivery {
            return collect(buffer, clientLimit: clientLimit, task: task)
        }
        let (writer, room) = state.withLockedValue { state in
            defer { state.bodyBytes += buffer.readableBytes }
            return (state.writer, maximumBytes - state.bodyBytes)
        }
        guard let writer, buffer.readableBytes > 0 else { return task.eventLoop.makeSucceededVoidFuture() }
        guard buffer.readableBytes <= room else {
            if room > 0 { _ = writer.yield(transportChunk: ByteBufferChunk(buffer.getSlice(at: buffer.readerIndex, length: room)!)) {} }
            writer.finish(throwing: AsyncHTTPClientTransport.streamedResponseTooLarge(limit: maximumBytes, url: url))
            task.cancel()
            return task.eventLoop.makeSucceededVoidFuture()
        }
        switch writer.yield(transportChunk: ByteBufferChunk(buffer), whenDrained: { [self] in drained() }) {
        case .more, .stopped:
            // A reader that stopped already cancelled the request.
            return task.eventLoop.makeSucceededVoidFuture()
        case .full:
            return state.withLockedValue { state in
                guard !state.drainedEarly else {
                    state.drainedEarly = false
                    return task.eventLoop.makeSucceededVoidFuture()
                }
                let paused = task.eventLoop.makePromise(of: Void.self)
                state.paused = paused
                return paused.futureResult
            }
        }
    }

    /// Adds a body part to a collected delivery's body, or fails the call once the body is
    /// over a limit (see ``exceededLimit(_:isDeclared:clientLimit:)``) and cancels the
    /// request.
    private func collect(_ buffer: ByteBuffer, clientLimit: Int, task: AsyncHTTPClient.HTTPClient.Task<Void>) -> EventLoopFuture<Void> {
        let exceeded = state.withLockedValue { state -> Limit? in
            state.bodyBytes += buffer.readableBytes
            if let exceeded = exceededLimit(Int64(state.bodyBytes), isDeclared: false, clientLimit: clientLimit) { return exceeded }
            if state.collected == nil {
                state.collected = buffer
            } else {
                state.collected!.writeImmutableBuffer(buffer)
            }
            return nil
        }
        if let exceeded {
            answerHead(.failure(tooLarge(exceeded, clientLimit: clientLimit)))
            task.cancel()
        }
        return task.eventLoop.makeSucceededVoidFuture()
    }

    /// A limit on a collected body.
    private enum Limit {
        /// The client's `maximumBufferedResponseBytes`.
        case client
        /// The transport's ``AsyncHTTPClientTransport/maximumStreamedResponseBytes``.
        case transport
    }

    /// The limit a body of `count` bytes (declared by the head when `isDeclared`, else received
    /// so far) is over, `nil` within both: the one whose error a streamed delivery collected
    /// by the client would give.
    ///
    /// The client's collect refuses a declared length over its limit before reading, so that
    /// limit comes first; the transport's own refuses it next. A body of unknown length is cut
    /// at the lower limit, the transport's when it is no higher, since the transport stops the
    /// stream before the client's collect sees more.
    private func exceededLimit(_ count: Int64, isDeclared: Bool, clientLimit: Int) -> Limit? {
        if isDeclared {
            if count > Int64(clientLimit) { return .client }
            return count > Int64(maximumBytes) ? .transport : nil
        }
        guard count > Int64(min(clientLimit, maximumBytes)) else { return nil }
        return clientLimit < maximumBytes ? .client : .transport
    }

    /// The error for a body over `limit`: made only then, since its message costs allocations.
    private func tooLarge(_ limit: Limit, clientLimit: Int) -> HTTPCore.HTTPError {
        switch limit {
        case .client: HTTPBody.bufferedCallTooLarge(clientLimit)
        case .transport: AsyncHTTPClientTransport.streamedResponseTooLarge(limit: maximumBytes, url: url)
        }
    }

    /// The reader took half the buffered bytes, or stopped: AHC may read on.
    private func drained() {
        let paused = state.withLockedValue { state in
            defer { state.paused = nil }
            if state.paused == nil { state.drainedEarly = true }
            return state.paused
        }
        paused?.succeed()
    }

    func didReceiveError(task: AsyncHTTPClient.HTTPClient.Task<Void>, _ error: any Error) {
        let ending = end()
        let visits = ending.visits
        if let writer = ending.writer {
            // After the reader stopped the body is over, and this is dropped.
            writer.finish(throwing: failure(error))
        } else if error is BodyNotResendable, let redirect = visits.last {
            let (body, writer) = HTTPBody.makeStream(length: .known(0))
            writer.finish()
            answerHead(.success(Head(head: redirect.head, body: .streamed(body), visits: visits)))
        } else {
            answerHead(.failure(failure(error)))
        }
    }

    func didFinishRequest(task: AsyncHTTPClient.HTTPClient.Task<Void>) throws {
        let ending = end()
        if case .collected = delivery {
            guard let head = ending.collectedHead else { return answerHead(.failure(.invalidResponse)) }
            return answerHead(.success(Head(head: head, body: .collected(ending.collected), visits: ending.visits)))
        }
        guard let writer = ending.writer else {
            return answerHead(.failure(.invalidResponse))
        }
        writer.finish()
    }
}
