import AsyncHTTPClient
import Foundation
import HTTPCore
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1

/// Receives one exchange through AHC's delegate API and hands it over as HTTPCore's: the head
/// to the caller of ``AsyncHTTPClientTransport/perform(_:body:)``, and each body part, on the
/// event loop that read it, straight into the body the caller reads.
///
/// No task stands between the connection and the reader: a part is copied once into the chunk
/// the reader gets, and the reader's task is the only one woken for it, as with a bare AHC
/// reader. Backpressure is AHC's own: while the body holds `bufferSize` unread bytes the part's
/// future stays pending, and AHC reads no more from the socket until the reader took half.
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

    /// The head of the exchange with the body that follows it, and the redirects before it.
    struct Head: Sendable {
        let head: HTTPResponseHead
        let body: HTTPBody
        let visits: [Visit]
    }

    private struct State {
        var visits: [Visit] = []
        var writer: HTTPBody.Writer?
        var bodyBytes = 0
        /// The promise of a body part that found the body full, until the reader drains it.
        var paused: EventLoopPromise<Void>?
        /// Whether the reader drained the body before the full part's promise was made.
        var drainedEarly = false
        /// How many times AHC asked for the request body: more than once after a redirect.
        var uploads = 0
        var pumps: [Task<Void, Never>] = []
        /// The AHC task, once `execute` returned it.
        var task: AsyncHTTPClient.HTTPClient.Task<Void>?
        /// Whether the deadline passed before the exchange ended.
        var timedOut = false
        var ticket: ExchangeDeadlines.Ticket?
    }

    /// The head, once it arrives, or why it never will.
    let head: EventLoopPromise<Head>
    private let request: HTTPCore.HTTPRequest
    private let maximumBytes: Int
    private let tooLarge: HTTPCore.HTTPError
    private let deadlines: ExchangeDeadlines
    private let state = NIOLockedValueBox(State())

    /// A delegate for `request`, whose body parts stop after `maximumBytes` with `tooLarge`,
    /// answering `head` on `eventLoop`; `deadlines` ends it at `deadline`, when there is one.
    init(
        request: HTTPCore.HTTPRequest, maximumBytes: Int, tooLarge: HTTPCore.HTTPError, on eventLoop: any EventLoop,
        deadline: NIODeadline?, watchedBy deadlines: ExchangeDeadlines
    ) {
        self.request = request
        self.maximumBytes = maximumBytes
        self.tooLarge = tooLarge
        self.head = eventLoop.makePromise(of: Head.self)
        self.deadlines = deadlines
        // Watched before AHC starts, so the entry is gone once the exchange ends.
        if let deadline {
            let ticket = deadlines.watch(self, until: deadline)
            state.withLockedValue { $0.ticket = ticket }
        }
    }

    /// Gives the AHC task running the exchange; cancels it at once when the deadline came first.
    func attach(_ task: AsyncHTTPClient.HTTPClient.Task<Void>) {
        let timedOut = state.withLockedValue { state in
            state.task = task
            return state.timedOut
        }
        if timedOut { task.cancel() }
    }

    func deadlinePassed() {
        let task = state.withLockedValue { state in
            state.timedOut = true
            return state.task
        }
        task?.cancel()
    }

    /// HTTPCore's error for what ended the exchange: a timeout when the deadline cancelled it.
    func failure(_ error: any Error) -> HTTPCore.HTTPError {
        state.withLockedValue { $0.timedOut } ? .timeout : HTTPCore.HTTPError(asyncHTTPClientError: error, url: request.url)
    }

    /// The exchange ended: stops the request body's upload and the deadline's watch.
    private func end() -> (writer: HTTPBody.Writer?, visits: [Visit]) {
        let (writer, visits, pumps, ticket) = state.withLockedValue { state in
            defer {
                state.pumps.removeAll()
                state.ticket = nil
            }
            return (state.writer, state.visits, state.pumps, state.ticket)
        }
        if let ticket { deadlines.unwatch(ticket) }
        // The server may answer before it read the whole request body.
        pumps.forEach { $0.cancel() }
        return (writer, visits)
    }

    // MARK: Request body

    /// AHC's request body for `body`: uploaded as the connection takes it, chunk by chunk, by a
    /// task that reads `body`. AHC asks for it again to follow a redirect that resends it; a
    /// single-pass body cannot be read twice, so that redirect ends the exchange with the
    /// redirect response itself.
    func upload(_ body: HTTPBody, on eventLoop: any EventLoop) -> AsyncHTTPClient.HTTPClient.Body {
        var length: Int64?
        if case .known(let count) = body.length { length = count }
        return .stream(contentLength: length) { [self] writer in
            let uploads = state.withLockedValue { state in
                state.uploads += 1
                return state.uploads
            }
            guard uploads == 1 || body.iterationBehavior == .multiple else {
                return eventLoop.makeFailedFuture(BodyNotResendable())
            }
            let sent = eventLoop.makePromise(of: Void.self)
            let pump = Task {
                do {
                    for try await chunk in body {
                        try await writer.write(.byteBuffer(ByteBuffer(bytes: chunk))).get()
                    }
                    sent.succeed()
                } catch {
                    sent.fail(error)
                }
            }
            state.withLockedValue { $0.pumps.append(pump) }
            return sent.futureResult
        }
    }

    /// What the request body's second upload fails with: the redirect is not followed.
    private struct BodyNotResendable: Error {}

    // MARK: Response

    func didVisitURL(task: AsyncHTTPClient.HTTPClient.Task<Void>, _ request: AsyncHTTPClient.HTTPClient.Request, _ head: HTTPResponseHead) {
        state.withLockedValue { $0.visits.append(Visit(method: request.method, url: request.url, head: head)) }
    }

    func didReceiveHead(task: AsyncHTTPClient.HTTPClient.Task<Void>, _ head: HTTPResponseHead) -> EventLoopFuture<Void> {
        let length = AsyncHTTPClientTransport.responseLength(method: request.method, status: Int(head.status.code), headers: head.headers)
        let (body, writer) = HTTPBody.makeStream(length: length)
        let visits = state.withLockedValue { state in
            state.writer = writer
            return state.visits
        }
        // Leaving early, as a reader that stops does, makes AHC cancel the request and close
        // its connection, so nothing is left half-read in the pool.
        writer.onTermination { task.cancel() }
        // Before any cancellation below: a failed task fails the head that is still pending.
        self.head.succeed(Head(head: head, body: body, visits: visits))
        if case .known(let count) = length, count > Int64(maximumBytes) {
            // Refused before reading a byte, as `collect(upTo:)` does.
            writer.finish(throwing: tooLarge)
            task.cancel()
        }
        return task.eventLoop.makeSucceededVoidFuture()
    }

    func didReceiveBodyPart(task: AsyncHTTPClient.HTTPClient.Task<Void>, _ buffer: ByteBuffer) -> EventLoopFuture<Void> {
        let (writer, room) = state.withLockedValue { state in
            defer { state.bodyBytes += buffer.readableBytes }
            return (state.writer, maximumBytes - state.bodyBytes)
        }
        guard let writer, buffer.readableBytes > 0 else { return task.eventLoop.makeSucceededVoidFuture() }
        guard buffer.readableBytes <= room else {
            if room > 0 { _ = writer.yield(Self.chunk(of: buffer, count: room)) {} }
            writer.finish(throwing: tooLarge)
            task.cancel()
            return task.eventLoop.makeSucceededVoidFuture()
        }
        switch writer.yield(Self.chunk(of: buffer, count: buffer.readableBytes), whenDrained: { [self] in drained() }) {
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
        let (writer, visits) = end()
        if let writer {
            // After the reader stopped the body is over, and this is dropped.
            writer.finish(throwing: failure(error))
        } else if error is BodyNotResendable, let redirect = visits.last {
            let (body, writer) = HTTPBody.makeStream(length: .known(0))
            writer.finish()
            head.succeed(Head(head: redirect.head, body: body, visits: visits))
        } else {
            head.fail(failure(error))
        }
    }

    func didFinishRequest(task: AsyncHTTPClient.HTTPClient.Task<Void>) throws {
        guard let writer = end().writer else {
            return head.fail(HTTPCore.HTTPError.invalidResponse)
        }
        writer.finish()
    }

    private static func chunk(of buffer: ByteBuffer, count: Int) -> HTTPBody.ByteChunk {
        buffer.getBytes(at: buffer.readerIndex, length: count)![...]
    }
}
