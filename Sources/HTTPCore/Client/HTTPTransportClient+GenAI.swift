import Foundation

extension HTTPTransportClient {
    /// The LLM call `request` is, as the policy recognises it (``HTTPCorePolicy/genAI``);
    /// `nil` when it is none or recognition is off. Pass the request as it went out, after the
    /// middlewares (one may move the call to another provider), and call it only for an
    /// observed exchange.
    func recognizedGenAI(_ request: HTTPRequest) -> GenAIRecognition? {
        sharedPolicy.policy.genAI?.recognize(request)
    }

    /// Whether an exchange beginning now reads LLM calls for their facts: recognition is on
    /// and a subscribed observer handles the terminal events that carry them. A streamed
    /// exchange decides once, as it begins, whether its response is tapped for them; a
    /// buffered one needs no decision, as its terminal event is built only for such an observer.
    var readsGenAI: Bool {
        sharedPolicy.policy.genAI != nil && configuration.dispatcher.hasTerminalEventObservers
    }

    /// The record of the LLM call `request` (as it last went out) is, if any, for its terminal
    /// event: a buffered call's whole `response`, or none, and the `error` it ended with. Its
    /// facts are derived when first read (``GenAIExchangeRecord``).
    func bufferedGenAI(_ request: RequestRecord, response: HTTPResponse?, error: HTTPError?) -> GenAIExchangeRecord? {
        recognizedGenAI(request.request).map { GenAIExchangeRecord($0, request: request, response: .whole(response), error: error) }
    }

    /// The record of the LLM call `request` (as it last went out, a streamed body only as far
    /// as the policy captured it) is, if any, for its terminal event: the `head` that arrived,
    /// what its body's `tap` read, and the `error` it ended with.
    func streamedGenAI(_ request: RequestRecord, head: HTTPResponse?, tap: BodyTap?, error: HTTPError?) -> GenAIExchangeRecord? {
        recognizedGenAI(request.request).map {
            GenAIExchangeRecord($0, request: request, response: .streamed(head: head, read: tap?.genAIRead), error: error)
        }
    }
}
