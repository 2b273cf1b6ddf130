import Foundation
import HTTPCore

/// Reads a body's messages one at a time through the package's one parser
/// (``StreamMessageParser``), pulling the next chunk only when the messages of the last one
/// were all taken: what the body's message sequences (``HTTPBody/Messages``) iterate with.
///
/// It holds at most the messages one chunk completed, and the parser's capped line and event.
/// A message over the cap fails the read with ``limitExceeded(kind:maxBytes:)``, after the
/// messages before it, and as soon as the parser sees it is over, not at its end, and reads
/// no more of the body (its iterator is dropped). What the body throws is thrown as it
/// is. After either, or the end, every call returns `nil`.
struct StreamMessageReader {
    private enum State {
        /// Reading the body: `ready` holds the messages of the last chunk not taken yet, from
        /// `next` on.
        case reading(HTTPBody.Iterator, ready: [StreamMessageParser.Message], next: Int)
        /// The body ended or a message was over the cap: `ready` holds the last messages, and
        /// `failure`, when set, comes after them.
        case draining(ready: [StreamMessageParser.Message], next: Int, failure: HTTPError?)
        case finished
    }

    private var state: State
    private var parser: StreamMessageParser
    private let limitExceeded: HTTPError

    /// A reader of `body`'s messages framed as `kind`, each of at most `maxBytes`.
    init(_ body: HTTPBody, kind: HTTPEvent.StreamMessage.Kind, maxBytes: Int) {
        state = .reading(body.makeAsyncIterator(), ready: [], next: 0)
        parser = StreamMessageParser(kind: kind, maxBytes: maxBytes)
        limitExceeded = Self.limitExceeded(kind: kind, maxBytes: maxBytes)
    }

    /// What reading a message of `kind` over `maxBytes` throws: the limit, and the parameter
    /// of the sequence that set it.
    static func limitExceeded(kind: HTTPEvent.StreamMessage.Kind, maxBytes: Int) -> HTTPError {
        switch kind {
        case .serverSentEvent:
            return .transport(
                .responseTooLarge,
                message: "a server-sent event is over \(maxBytes) bytes (its data, or its event: or id: value), "
                    + "the maximumEventBytes given to serverSentEvents(maximumEventBytes:)"
            )
        case .jsonLine, .webSocket:
            return .transport(
                .responseTooLarge, message: "a JSON line is over \(maxBytes) bytes, the maximumLineBytes given to jsonLines(maximumLineBytes:)"
            )
        }
    }

    /// The next complete message, or `nil` once the body ended.
    ///
    /// - Throws: ``limitExceeded(kind:maxBytes:)`` for a message over the cap; what the body throws.
    mutating func next() async throws -> StreamMessageParser.Message? {
        while true {
            switch state {
            case .reading(var chunks, let ready, let next):
                if next < ready.count {
                    state = .reading(chunks, ready: ready, next: next + 1)
                    return ready[next]
                }
                state = .finished
                guard let chunk = try await chunks.next() else {
                    var completed: [StreamMessageParser.Message] = []
                    parser.finish { completed.append($0) }
                    state = nextState(after: completed, reading: nil)
                    continue
                }
                var completed: [StreamMessageParser.Message] = []
                completed.reserveCapacity(ready.capacity)
                parser.feed(chunk) { completed.append($0) }
                state = nextState(after: completed, reading: chunks)
            case .draining(let ready, let next, let failure):
                if next < ready.count {
                    state = .draining(ready: ready, next: next + 1, failure: failure)
                    return ready[next]
                }
                state = .finished
                if let failure { throw failure }
                return nil
            case .finished:
                return nil
            }
        }
    }

    /// What follows the `completed` messages of a chunk, or of the end (`chunks` `nil`): those
    /// up to the first over the cap, then the failure; or, when none is and the message being
    /// read is not over it either, the body's next chunk.
    private func nextState(after completed: [StreamMessageParser.Message], reading chunks: HTTPBody.Iterator?) -> State {
        if let over = completed.firstIndex(where: \.isOverLimit) {
            return .draining(ready: Array(completed[..<over]), next: 0, failure: limitExceeded)
        }
        guard let chunks else { return .draining(ready: completed, next: 0, failure: nil) }
        if parser.isReadingOverLimit { return .draining(ready: completed, next: 0, failure: limitExceeded) }
        return .reading(chunks, ready: completed, next: 0)
    }
}
