import AsyncHTTPClient
import Foundation
import HTTPCore
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1

/// The AHC delegate of a buffered exchange: keeps the response head, collects the body up to a
/// cap, and remembers the URL of the last request sent (the final one after redirects).
///
/// It does what AHC's `ResponseAccumulator` does for HTTPCore, minus what HTTPCore does not
/// use: no redirect history array and no `HTTPClient.Response`, and the event loop's cached
/// succeeded future for each part, so a small exchange costs fewer allocations.
final class ResponseCollector: HTTPClientResponseDelegate {
    /// What an exchange produced.
    struct Collected: Sendable {
        let head: HTTPResponseHead
        let body: ByteBuffer?
        let url: URL?
    }

    /// The body was over the cap (announced by `Content-Length`, or as it arrived).
    struct TooLarge: Error {}

    private struct State {
        var head: HTTPResponseHead?
        var body: ByteBuffer?
        var url: URL?
    }

    private let method: HTTPCore.HTTPMethod
    private let maximumBytes: Int
    private let state = NIOLockedValueBox(State())

    /// A collector for a request with `method` whose body may be at most `maximumBytes` long.
    init(method: HTTPCore.HTTPMethod, maximumBytes: Int) {
        self.method = method
        self.maximumBytes = maximumBytes
    }

    func didVisitURL(task: AsyncHTTPClient.HTTPClient.Task<Collected>, _ request: AsyncHTTPClient.HTTPClient.Request, _ head: HTTPResponseHead) {
        state.withLockedValue { $0.url = request.url }
    }

    func didReceiveHead(task: AsyncHTTPClient.HTTPClient.Task<Collected>, _ head: HTTPResponseHead) -> EventLoopFuture<Void> {
        let length = AsyncHTTPClientTransport.responseLength(method: method, status: Int(head.status.code), headers: head.headers)
        if case .known(let declared) = length, declared > Int64(maximumBytes) {
            return task.eventLoop.makeFailedFuture(TooLarge())
        }
        state.withLockedValue { $0.head = head }
        return task.eventLoop.makeSucceededVoidFuture()
    }

    func didReceiveBodyPart(task: AsyncHTTPClient.HTTPClient.Task<Collected>, _ buffer: ByteBuffer) -> EventLoopFuture<Void> {
        let fits = state.withLockedValue { state -> Bool in
            guard var body = state.body else {
                state.body = buffer
                return buffer.readableBytes <= maximumBytes
            }
            guard body.readableBytes + buffer.readableBytes <= maximumBytes else { return false }
            state.body = nil   // one owner while writing, so the write does not copy
            body.writeImmutableBuffer(buffer)
            state.body = body
            return true
        }
        return fits ? task.eventLoop.makeSucceededVoidFuture() : task.eventLoop.makeFailedFuture(TooLarge())
    }

    func didFinishRequest(task: AsyncHTTPClient.HTTPClient.Task<Collected>) throws -> Collected {
        try state.withLockedValue { state in
            guard let head = state.head else { throw HTTPClientError.remoteConnectionClosed }
            return Collected(head: head, body: state.body, url: state.url)
        }
    }
}
