import Foundation
import HTTPCore
import OpenAPIRuntime

/// Turns HTTPCore's scoped streaming call, whose body lives only inside `receive`, into what
/// swift-openapi-runtime expects: a response returned with a body the caller reads later.
///
/// The exchange runs in a task of its own. Inside `receive` it hands the head out with a
/// relay body, then copies the real body into the relay as the caller reads it (the relay's
/// buffer gives backpressure). The relay keeps an ``ExchangeHandle``: once the caller has
/// dropped the body and its iterators, a body of known length up to
/// ``drainedBodyLimit`` is still read to its end (it fits in the relay's buffer, so the
/// exchange ends as it would have: generated code ignores the body of an answer documented
/// without content, a 404 say); any other body's exchange is cancelled.
enum ResponseRelay {
    /// The largest body of known length read to its end after the caller dropped it.
    static let drainedBodyLimit: Int64 = 64 * 1024

    /// Starts `request` through `client` and returns once the response head arrived.
    ///
    /// Cancelling the calling task before then cancels the exchange.
    static func start<Client: HTTPClient>(
        _ request: HTTPCore.HTTPRequest,
        body: HTTPCore.HTTPBody?,
        through client: Client
    ) async throws -> (HTTPCore.HTTPResponse, OpenAPIRuntime.HTTPBody) {
        let head = HeadHandOff()
        let exchange = Task {
            do {
                try await client.send(request, body: body) { response, body in
                    let (relay, writer) = HTTPCore.HTTPBody.makeStream(length: body.length)
                    head.deliver(.success((response, relay)))
                    do {
                        for try await chunk in body { try await writer.write(chunk) }
                        writer.finish()
                    } catch {
                        writer.finish(throwing: error)
                        throw error
                    }
                }
            } catch {
                head.deliver(.failure(error))
            }
        }
        let (response, relay) = try await withTaskCancellationHandler {
            try await head.value()
        } onCancel: {
            exchange.cancel()
        }
        let length: OpenAPIRuntime.HTTPBody.Length
        let handle: ExchangeHandle
        switch relay.length {
        case .known(let count):
            length = .known(count)
            handle = ExchangeHandle(exchange, cancelsWhenDropped: count > drainedBodyLimit)
        case .unknown:
            length = .unknown
            handle = ExchangeHandle(exchange, cancelsWhenDropped: true)
        }
        return (response, OpenAPIRuntime.HTTPBody(RelayedBody(relay: relay, handle: handle), length: length, iterationBehavior: .single))
    }
}

/// Cancels the exchange when the last holder of the relayed body lets go of it, unless the
/// body is small enough to be read to its end.
final class ExchangeHandle: Sendable {
    private let exchange: Task<Void, Never>
    private let cancelsWhenDropped: Bool

    init(_ exchange: Task<Void, Never>, cancelsWhenDropped: Bool) {
        self.exchange = exchange
        self.cancelsWhenDropped = cancelsWhenDropped
    }

    deinit {
        // A no-op once the body was read to its end and the exchange is over.
        if cancelsWhenDropped { exchange.cancel() }
    }
}

/// The relay body, keeping the exchange's handle alive while it or an iterator of it exists.
struct RelayedBody: AsyncSequence, Sendable {
    typealias Element = HTTPCore.HTTPBody.ByteChunk

    let relay: HTTPCore.HTTPBody
    let handle: ExchangeHandle

    struct AsyncIterator: AsyncIteratorProtocol {
        var chunks: HTTPCore.HTTPBody.Iterator
        let handle: ExchangeHandle

        mutating func next() async throws -> Element? {
            try await chunks.next()
        }
    }

    func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(chunks: relay.makeAsyncIterator(), handle: handle)
    }
}

/// The response head, handed from the exchange's task to the caller once.
final class HeadHandOff: @unchecked Sendable {   // safe: `state` is touched only under `lock`
    typealias Head = (HTTPCore.HTTPResponse, HTTPCore.HTTPBody)

    private enum State {
        case waitingForBoth
        case waiting(CheckedContinuation<Head, any Error>)
        case arrived(Result<Head, any Error>)
        case handedOver
    }

    private let lock = NSLock()
    private var state = State.waitingForBoth

    /// Hands `head` (or the failure before it) to the caller; later calls are ignored.
    func deliver(_ head: Result<Head, any Error>) {
        let waiter: CheckedContinuation<Head, any Error>? = lock.withLock {
            switch state {
            case .waitingForBoth:
                state = .arrived(head)
                return nil
            case .waiting(let waiter):
                state = .handedOver
                return waiter
            case .arrived, .handedOver:
                return nil
            }
        }
        waiter?.resume(with: head)
    }

    /// The head, once it arrived.
    func value() async throws -> Head {
        try await withCheckedThrowingContinuation { continuation in
            let arrived: Result<Head, any Error>? = lock.withLock {
                switch state {
                case .waitingForBoth:
                    state = .waiting(continuation)
                    return nil
                case .arrived(let head):
                    state = .handedOver
                    return head
                case .waiting, .handedOver:
                    preconditionFailure("the head is awaited once")
                }
            }
            if let arrived { continuation.resume(with: arrived) }
        }
    }
}
