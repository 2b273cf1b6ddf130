import Foundation

extension HTTPTransportClient {
    /// The LLM call `request` is, as the policy recognises it (``HTTPCorePolicy/genAI``);
    /// `nil` when it is none or recognition is off. Pass the request as it went out, after the
    /// middlewares (one may move the call to another provider), and call it only for an
    /// observed exchange.
    func recognizedGenAI(_ request: HTTPRequest) -> GenAIRecognition? {
        policy.genAI?.recognize(request)
    }

    /// Whether an exchange beginning now reads LLM calls for their facts: recognition is on
    /// and a subscribed observer handles the terminal events that carry them. A streamed
    /// exchange decides once, as it begins, whether its response is tapped for them; a
    /// buffered one needs no decision, as its terminal event is built only for such an observer.
    var readsGenAI: Bool {
        policy.genAI != nil && dispatcher.hasTerminalEventObservers
    }

    /// The facts of a buffered call `recognition` describes: `request` as it went out, and the
    /// whole `response` (its body and headers read now), or the `error` it ended with.
    func bufferedGenAI(
        _ recognition: GenAIRecognition, request: HTTPRequest, response: HTTPResponse?, error: HTTPError?
    ) -> GenAIExchange {
        var reader = GenAIResponseReader(recognition)
        if let response {
            reader.read(headers: response.headers)
            if let body = Self.genAIReadable(response.body) { reader.read(body: body) }
        }
        return GenAIExchange(
            recognition: recognition, request: genAIRequestParameters(request.body, for: recognition),
            response: reader.response, statusCode: response?.statusCode, error: error
        )
    }

    /// The facts of a streamed call `recognition` describes: `request` as it went out (a
    /// streamed body only as far as the policy captured it), the `head` that arrived, what
    /// its body's tap `read`, and the `error` it ended with.
    func streamedGenAI(
        _ recognition: GenAIRecognition, request: HTTPRequest, head: HTTPResponse?, read: GenAIResponse?, error: HTTPError?
    ) -> GenAIExchange {
        GenAIExchange(
            recognition: recognition, request: genAIRequestParameters(request.body, for: recognition),
            response: read ?? GenAIResponse(), statusCode: head?.statusCode, error: error
        )
    }

    /// The parameters `body` asks for. Its stop sequences are the caller's text: they are
    /// kept only when the policy captures bodies, each through the policy's redactor, as the
    /// body itself would be shown; otherwise they are left out.
    private func genAIRequestParameters(_ body: Data?, for recognition: GenAIRecognition) -> GenAIRequestParameters {
        var parameters = GenAIRequestParameters(body: Self.genAIReadable(body), for: recognition)
        if let stopSequences = parameters.stopSequences {
            parameters.stopSequences = policy.capturedBodyBytes > 0 ? stopSequences.map(policy.redactor.redactedText) : nil
        }
        return parameters
    }

    /// `body` when there is one that is not longer than ``HTTPCorePolicy/maximumGenAIBodyBytes``.
    private static func genAIReadable(_ body: Data?) -> Data? {
        guard let body, !body.isEmpty, body.count <= HTTPCorePolicy.maximumGenAIBodyBytes else { return nil }
        return body
    }
}
