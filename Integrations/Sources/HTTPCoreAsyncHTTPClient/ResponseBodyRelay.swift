import AsyncHTTPClient
import Foundation
import HTTPCore
import NIOCore

/// Moves an AHC response body into the ``HTTPBody`` a streaming exchange hands to its caller,
/// one buffer at a time, as the caller reads.
///
/// A task reads AHC's body (pull-based: AHC reads the socket only while it is asked for more)
/// and writes each buffer into the body's writer, which suspends while the caller has enough
/// unread; so a slow caller slows the connection and neither side holds the body whole.
///
/// The body cannot simply wrap AHC's sequence: AHC's deadline covers only the wait for the
/// head, and a sequence of its own cannot hear ``HTTPBody/Writer/onTermination(_:)``. With the
/// task, a caller that stops (or the exchange's deadline, which stops the body) cancels it,
/// and a cancelled read makes AHC cancel the request and close its connection.
struct ResponseBodyRelay: Sendable {
    let writer: HTTPBody.Writer
    /// The most bytes handed to the caller; past it the body fails with `tooLarge`.
    let maximumBytes: Int
    let tooLarge: HTTPCore.HTTPError
    let url: URL

    /// Starts relaying `source`, of `length` as the head told it, until it ends, fails, passes
    /// the cap, the caller stops, or `deadline` passes (then the body fails with
    /// ``HTTPError/timeout``).
    func start(from source: HTTPClientResponse.Body, length: HTTPBody.Length, deadline: NIODeadline, on eventLoop: any EventLoop) {
        if case .known(let count) = length, count > Int64(maximumBytes) {
            // Refused before reading a byte, as `collect(upTo:)` does; dropping `source`
            // unread makes AHC cancel the request.
            writer.finish(throwing: tooLarge)
            return
        }
        let ended: EventLoopPromise<Void>? = deadline == .distantFuture ? nil : eventLoop.makePromise()
        let task = Task {
            await relay(source)
            ended?.succeed()
        }
        writer.onTermination { task.cancel() }
        guard let ended else { return }
        let timer = eventLoop.scheduleTask(deadline: deadline) { [writer] in
            writer.finish(throwing: HTTPCore.HTTPError.timeout)
            task.cancel()
        }
        ended.futureResult.whenComplete { _ in timer.cancel() }
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
