import Foundation
import HTTPCore
import OpenAPIRuntime

/// HTTPCore's response body as swift-openapi-runtime's, handed over as it is: no task and no
/// copy between the transport and the generated code, which reads it later.
///
/// The exchange ends with the body (see `HTTPClient.send(_:body:)`). One rule is added for
/// generated code, which drops the body of an answer documented without content (a 404, say):
/// when the last holder of this body lets go of it unread, a body of known length up to
/// ``drainedBodyLimit`` is read to its end, so its exchange ends as it would have, succeeded;
/// any other body dropped before its end is let go, and its exchange is cancelled.
struct HandedOverBody: AsyncSequence, Sendable {
    typealias Element = HTTPCore.HTTPBody.ByteChunk

    /// The largest body of known length read to its end after the caller dropped it.
    static let drainedBodyLimit: Int64 = 64 * 1024

    private let holder: Holder

    /// `body` for swift-openapi-runtime, with its length.
    static func openAPIBody(_ body: HTTPCore.HTTPBody) -> OpenAPIRuntime.HTTPBody {
        let length: OpenAPIRuntime.HTTPBody.Length =
            switch body.length {
            case .known(let count): .known(count)
            case .unknown: .unknown
            }
        return OpenAPIRuntime.HTTPBody(HandedOverBody(holder: Holder(body)), length: length, iterationBehavior: .single)
    }

    private init(holder: Holder) {
        self.holder = holder
    }

    struct AsyncIterator: AsyncIteratorProtocol {
        var chunks: HTTPCore.HTTPBody.Iterator
        /// Keeps the body alive while the iterator is.
        let holder: Holder

        mutating func next() async throws -> Element? {
            try await chunks.next()
        }
    }

    func makeAsyncIterator() -> AsyncIterator {
        holder.markIterated()
        return AsyncIterator(chunks: holder.body.makeAsyncIterator(), holder: holder)
    }

    /// Keeps the body while this sequence or an iterator of it exists; drains a small body
    /// dropped unread.
    final class Holder: @unchecked Sendable {   // safe: `isIterated` is only touched under `lock`
        let body: HTTPCore.HTTPBody
        private let lock = NSLock()
        private var isIterated = false

        init(_ body: HTTPCore.HTTPBody) {
            self.body = body
        }

        func markIterated() {
            lock.withLock { isIterated = true }
        }

        deinit {
            guard !lock.withLock({ isIterated }), case .known(let count) = body.length, count <= HandedOverBody.drainedBodyLimit else {
                return
            }
            let body = body
            Task { _ = try? await body.collect(upTo: Int(count)) }
        }
    }
}
