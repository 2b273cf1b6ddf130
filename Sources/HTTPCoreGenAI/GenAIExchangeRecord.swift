import Foundation
import HTTPCore
import HTTPCoreObservation
import HTTPCoreConcurrency

/// The LLM call a terminal event carries, behind one reference, so the events that carry none
/// (all but a few) stay as small as they were.
///
/// A client's record keeps what the facts are derived from (the recognition, the request as it
/// went out, what came back, the error) and derives them on first read, once, under its lock:
/// the bodies' JSON, and a stream's messages its tap kept unread, are parsed by the observer
/// that asks (a sink's worker), not on the caller's task as the event is emitted. Readers
/// that come while it is derived wait for that one.
package final class GenAIExchangeRecord: Sendable {
    /// What came back, as the facts are read from it.
    enum Response: Sendable {
        /// A buffered call's whole response; `nil` when none came.
        case whole(HTTPResponse?)
        /// A streamed call's head, `nil` when none came, and what its body's tap read.
        case streamed(head: HTTPResponse?, read: GenAIResponseTap?)
    }

    /// What the facts are derived from, until they are.
    fileprivate struct Source: Sendable {
        let recognition: GenAIRecognition
        let request: HTTPRequest
        let policy: HTTPCorePolicy
        let response: Response
        let error: HTTPError?
    }

    private enum State: Sendable {
        case pending(Source)
        case derived(GenAIExchange)
    }

    private let state: Locked<State>

    /// A record of facts already known (an event made as a value).
    init(_ exchange: GenAIExchange) {
        state = Locked(.derived(exchange))
    }

    /// A record of the call `recognition` describes: `request` as it went out, `response` as
    /// it came back, and the `error` the exchange ended with.
    init(_ recognition: GenAIRecognition, request: HTTPRequest, policy: HTTPCorePolicy, response: Response, error: HTTPError?) {
        state = Locked(.pending(Source(recognition: recognition, request: request, policy: policy, response: response, error: error)))
    }

    /// The facts, derived on the first read.
    package var exchange: GenAIExchange {
        state.withLock { state in
            switch state {
            case .derived(let exchange):
                return exchange
            case .pending(let source):
                let exchange = source.derived()
                state = .derived(exchange)
                return exchange
            }
        }
    }

    /// Whether the facts were derived yet (or given).
    package var isDerived: Bool {
        state.withLock { state in
            if case .derived = state { return true }
            return false
        }
    }

    /// Bytes it keeps alive, without deriving the facts: the record and its lock, and the
    /// strings and arrays of the facts, or, until they are derived, of the recognition and of
    /// what a stream's tap took (its messages kept unread and its kept JSON body included).
    /// The bodies the event carries are counted by the event,
    /// not here.
    package var retainedByteCount: Int {
        let records = 2 * Self.allocation
        return records + state.withLock { state in
            switch state {
            case .derived(let exchange):
                return Self.retainedByteCount(of: exchange)
            case .pending(let source):
                guard case .streamed(_, let read?) = source.response else { return Self.retainedByteCount(of: source.recognition) }
                return Self.retainedByteCount(of: source.recognition) + read.retainedByteCount
            }
        }
    }

    /// The bytes the strings and arrays of `exchange` keep alive.
    static func retainedByteCount(of exchange: GenAIExchange) -> Int {
        retainedByteCount(of: exchange.recognition) + retainedByteCount(of: exchange.request)
            + retainedByteCount(of: exchange.response) + retainedByteCount(of: exchange.errorType)
    }

    /// About what one allocation costs beyond its bytes.
    private static let allocation = 64

    /// The bytes of `string`, and its allocation when it is too long to be stored inline.
    private static func retainedByteCount(of string: String?) -> Int {
        guard let count = string?.utf8.count else { return 0 }
        return count > 15 ? count + allocation : 0
    }

    /// The bytes an array of `strings` keeps alive: its allocation and elements, and each
    /// string's own.
    private static func retainedByteCount(of strings: (some Collection<String>)?) -> Int {
        guard let strings, !strings.isEmpty else { return 0 }
        return strings.reduce(allocation) { $0 + MemoryLayout<String>.stride + retainedByteCount(of: $1) }
    }

    private static func retainedByteCount(of recognition: GenAIRecognition) -> Int {
        retainedByteCount(of: recognition.provider.name) + retainedByteCount(of: recognition.operation.name)
            + retainedByteCount(of: recognition.modelInPath) + retainedByteCount(of: recognition.serverAddress)
    }

    private static func retainedByteCount(of request: GenAIRequestParameters) -> Int {
        retainedByteCount(of: request.model) + retainedByteCount(of: request.stopSequences)
    }

    /// The bytes `response`'s strings and arrays keep alive.
    static func retainedByteCount(of response: GenAIResponse) -> Int {
        retainedByteCount(
            id: response.id, model: response.model, errorCode: response.errorCode, finishReasons: response.finishReasons,
            providerFinishReasons: response.providerFinishReasons, outputChunkIntervalCount: response.outputChunkIntervals.count
        )
    }

    /// The bytes a response of these strings and arrays keeps alive, in any order: a reader
    /// counts what it read without making the response.
    static func retainedByteCount(
        id: String?, model: String?, errorCode: String?, finishReasons: some Collection<String>,
        providerFinishReasons: some Collection<String>, outputChunkIntervalCount: Int
    ) -> Int {
        let intervals = outputChunkIntervalCount == 0 ? 0 : allocation + outputChunkIntervalCount * MemoryLayout<Double>.stride
        return retainedByteCount(of: id) + retainedByteCount(of: model) + retainedByteCount(of: errorCode)
            + retainedByteCount(of: finishReasons) + retainedByteCount(of: providerFinishReasons) + intervals
    }
}

extension GenAIExchangeRecord.Source {
    /// The facts of the call, their texts masked by the policy's redactor
    /// (``GenAIExchange/redacted(by:)``).
    func derived() -> GenAIExchange {
        let response: GenAIResponse
        let statusCode: Int?
        switch self.response {
        case .whole(let whole):
            var reader = GenAIResponseReader(recognition)
            if let whole {
                reader.read(headers: whole.headers)
                if let body = Self.readable(whole.body) { reader.read(body: body) }
            }
            response = reader.response
            statusCode = whole?.statusCode
        case .streamed(let head, let read):
            response = read?.response ?? GenAIResponse()
            statusCode = head?.statusCode
        }
        return GenAIExchange(
            recognition: recognition, request: requestParameters, response: response, statusCode: statusCode, error: error
        ).redacted(by: policy.redactor)
    }

    /// The parameters the request's body asks for. Its stop sequences are the caller's text:
    /// they are kept only when the policy captures bodies, as the body itself would be shown;
    /// otherwise they are left out.
    private var requestParameters: GenAIRequestParameters {
        var parameters = GenAIRequestParameters(body: Self.readable(request.body), for: recognition)
        if policy.bodyCapture == .omitted { parameters.stopSequences = nil }
        return parameters
    }

    /// `body` when there is one that is not longer than ``GenAIRecognizer/maximumBodyBytes``.
    private static func readable(_ body: Data?) -> Data? {
        guard let body, !body.isEmpty, body.count <= GenAIRecognizer.maximumBodyBytes else { return nil }
        return body
    }
}
