import AsyncHTTPClient
import Foundation
import HTTPCore
import NIOConcurrencyHelpers
import NIOCore

/// Moves an AHC response body into the ``/HTTPCore/HTTPBody`` an exchange hands to its caller, one
/// buffer at a time, as the caller reads.
///
/// A task reads AHC's body (pull-based: AHC reads the socket only while it is asked for more)
/// and writes each buffer into the body's writer, which suspends while the caller has enough
/// unread; so a slow caller slows the connection and neither side holds the body whole. Each
/// buffer is converted once, into the chunk the caller reads.
///
/// The body cannot simply wrap AHC's sequence, though that would save the task and the
/// writer's buffer: AHC's deadline covers only the wait for the head, and neither a read of
/// AHC's body nor a body wrapping a sequence can be interrupted from outside the reading task
/// (`HTTPBody`'s stop, ``/HTTPCore/HTTPBody/Writer/onTermination(_:)``, is the writer's alone). With the task, a
/// caller that stops (or the exchange's deadline, which stops the body) cancels it, and a
/// cancelled read makes AHC cancel the request and close its connection.
///
/// Where the runtime has `Task.immediate` (Swift 6.2 on Linux, the 26 releases of Apple's
/// platforms) the task starts on the caller's thread: a body that arrived with the head is
/// in the writer's buffer before ``AsyncHTTPClientTransport/perform(_:body:)`` returns, so the
/// caller reads it with no hop to another thread and back.
struct ResponseBodyRelay: Sendable {
    let writer: HTTPBody.Writer
    /// The most bytes handed to the caller; past it the body fails with `tooLarge`.
    let maximumBytes: Int
    let tooLarge: HTTPCore.HTTPError
    let url: URL

    /// Starts relaying `source`, of `length` as the head told it, until it ends, fails, passes
    /// the cap, the caller stops, or `deadline` (when given) passes: then `deadlines` fails the
    /// body with ``/HTTPCore/HTTPError/timeout`` and stops the relay.
    func start(from source: HTTPClientResponse.Body, length: HTTPBody.Length, deadline: NIODeadline?, watchedBy deadlines: BodyDeadlines) {
        if case .known(let count) = length, count > Int64(maximumBytes) {
            // Refused before reading a byte, as `collect(upTo:)` does; dropping `source`
            // unread makes AHC cancel the request.
            writer.finish(throwing: tooLarge)
            return
        }
        let timeout = deadline.map { deadline in
            let stop = TimeoutStop(writer: writer)
            return (stop: stop, ticket: deadlines.watch(stop, until: deadline))
        }
        let work: @Sendable () async -> Void = {
            await relay(source)
            if let timeout { deadlines.unwatch(timeout.ticket) }
        }
        let task: Task<Void, Never>
        #if compiler(>=6.2)
        if #available(macOS 26, iOS 26, tvOS 26, watchOS 26, visionOS 26, *) {
            task = Task.immediate(operation: work)
        } else {
            task = Task(operation: work)
        }
        #else
        task = Task(operation: work)
        #endif
        timeout?.stop.attach(task)
        writer.onTermination { task.cancel() }
    }

    private func relay(_ source: HTTPClientResponse.Body) async {
        var relayed = 0
        do {
            // Leaving the loop early drops AHC's iterator, which cancels the request.
            for try await buffer in source where buffer.readableBytes > 0 {
                let room = maximumBytes - relayed
                guard buffer.readableBytes <= room else {
                    if room > 0 { try await writer.write(Self.chunk(of: buffer, count: room)) }
                    writer.finish(throwing: tooLarge)
                    return
                }
                relayed += buffer.readableBytes
                try await writer.write(Self.chunk(of: buffer, count: buffer.readableBytes))
            }
            writer.finish()
        } catch {
            // After the caller stopped (the writer threw) the body is over and this is dropped.
            writer.finish(throwing: HTTPCore.HTTPError(asyncHTTPClientError: error, url: url))
        }
    }

    private static func chunk(of buffer: ByteBuffer, count: Int) -> HTTPBody.ByteChunk {
        buffer.getBytes(at: buffer.readerIndex, length: count)![...]
    }
}

/// What the deadline does to a relayed body: fails it with ``/HTTPCore/HTTPError/timeout`` and cancels
/// the relay's task, which may be attached after the deadline already passed.
private final class TimeoutStop: BodyDeadlines.Reader {
    private enum State {
        case waiting
        case relaying(Task<Void, Never>)
        case stopped
    }

    private let writer: HTTPBody.Writer
    private let state = NIOLockedValueBox(State.waiting)

    init(writer: HTTPBody.Writer) {
        self.writer = writer
    }

    /// Gives the relay's task; cancels it at once when the deadline came first.
    func attach(_ task: Task<Void, Never>) {
        let stopped = state.withLockedValue { state -> Bool in
            if case .stopped = state { return true }
            state = .relaying(task)
            return false
        }
        if stopped { task.cancel() }
    }

    func cancel() {
        writer.finish(throwing: HTTPCore.HTTPError.timeout)
        let task = state.withLockedValue { state -> Task<Void, Never>? in
            defer { state = .stopped }
            if case .relaying(let task) = state { return task }
            return nil
        }
        task?.cancel()
    }
}
