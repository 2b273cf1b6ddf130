import Foundation
import HTTPCore
import HTTPCoreObservation

/// Reads an LLM call's response as it arrives: one whole JSON body, or the stream's
/// messages one by one with the time each arrived, into a ``GenAIResponse``.
///
/// ```swift
/// var reader = GenAIResponseReader(recognition)
/// reader.read(eventType: "content_block_delta", data: data, arrivedAfter: 0.42)
/// let response = reader.response
/// ```
///
/// A message carries a chunk of output when it carries generated text, reasoning, a refusal
/// or tool-call arguments: tool-call fragments are not answer text, but the model generated
/// them, so they start the clock (time to first chunk) and count as output chunks. Pings,
/// start and stop events, role-only deltas and usage-only chunks do not. Not thread-safe:
/// feed it from one place, in arrival order.
package struct GenAIResponseReader: Sendable {
    /// The most intervals between output chunks kept; later chunks are still counted.
    package static let maximumChunkIntervals = 8192

    private let recognition: GenAIRecognition
    /// The response shape, which the endpoint's format fixes; Bedrock's `invoke` answers in
    /// the model's own shape, which is then taken from the first payload that is not an error.
    private var shape: LLMPayload.Shape?
    private var usage = LLMPayload.Usage()
    /// The last finish reason each choice gave, by its index: servers may repeat it.
    private var finishReasonByChoice: [Int: String] = [:]
    private var current = GenAIResponse()
    private var lastOutputAt: Double?

    /// A reader for the response of the call `recognition` describes.
    package init(_ recognition: GenAIRecognition) {
        self.recognition = recognition
        shape = LLMPayload.Shape(recognition.format)
    }

    /// What was read so far.
    package var response: GenAIResponse {
        var response = current
        response.usage = conventionUsage
        response.providerFinishReasons = finishReasonByChoice.sorted { $0.key < $1.key }.map(\.value)
        response.finishReasons = response.providerFinishReasons.map(GenAIFinishReason.conventionName)
        return response
    }

    /// The stream messages read so far.
    var messageCount: Int { current.messageCount }

    /// The bytes the strings and arrays of ``response`` keep alive, counted from what was
    /// read without making the response (which sorts the finish reasons): the same as
    /// ``GenAIExchangeRecord/retainedByteCount(of:)`` of ``response``.
    var retainedByteCount: Int {
        GenAIExchangeRecord.retainedByteCount(
            id: current.id, model: current.model, errorCode: current.errorCode,
            finishReasons: finishReasonByChoice.values.lazy.map(GenAIFinishReason.conventionName),
            providerFinishReasons: finishReasonByChoice.values, outputChunkIntervalCount: current.outputChunkIntervals.count
        )
    }

    /// Reads a whole response body (or an error body).
    package mutating func read(body: Data) {
        // TGI's `/generate` may answer with a list of one generation.
        let isList = recognition.format == .textGenerationInference
        guard let object = JSONObject(data: body, takesFirstOfArray: isList), let payload = LLMPayload.read(object) else { return }
        absorb(payload, arrivedAfter: nil)
    }

    /// Reads one stream message: a server-sent event's type (or Bedrock's `:event-type`) and
    /// data, or a JSON line (`eventType` `nil`), which arrived `seconds` after the request
    /// was sent.
    package mutating func read(eventType: String?, data: Data, arrivedAfter seconds: Double) {
        current.messageCount += 1
        guard let payload = LLMPayload.read(eventType: eventType, data: data) else { return }
        absorb(payload, arrivedAfter: seconds)
    }

    /// Reads one stream message as observers see it, which arrived `seconds` after the
    /// request was sent.
    package mutating func read(_ message: HTTPEvent.StreamMessage, arrivedAfter seconds: Double) {
        read(eventType: message.eventType, data: Data(message.data.utf8), arrivedAfter: seconds)
    }

    /// Reads the response's headers: Bedrock names its errors in `x-amzn-ErrorType`
    /// (`ThrottlingException:http://…`), not in the body.
    package mutating func read(headers: HTTPHeaders) {
        guard let type = headers["x-amzn-ErrorType"], let code = type.split(separator: ":").first, !code.isEmpty else { return }
        current.errorCode = current.errorCode ?? String(code)
    }

    private mutating func absorb(_ payload: LLMPayload, arrivedAfter seconds: Double?) {
        if shape == nil, payload.errorCode == nil { shape = payload.shape }
        current.id = current.id ?? payload.responseID
        current.model = current.model ?? payload.responseModel
        finishReasonByChoice.merge(payload.finishReasons) { _, later in later }
        usage.update(with: payload.usage)
        if let code = payload.errorCode {
            if code.isEmpty {
                current.reportsErrorWithoutCode = true
            } else if current.errorCode == nil {
                current.errorCode = code
            }
        }
        guard payload.carriesOutput, let seconds else { return }
        current.outputChunkCount += 1
        if let last = lastOutputAt {
            if current.outputChunkIntervals.count < Self.maximumChunkIntervals { current.outputChunkIntervals.append(seconds - last) }
        } else {
            current.timeToFirstChunk = seconds
        }
        lastOutputAt = seconds
    }

    /// The usage in the convention's terms: Anthropic's and Bedrock's input counts exclude
    /// the cached tokens, which are added; Gemini's output count excludes the reasoning
    /// tokens, which are added.
    private var conventionUsage: GenAIUsage? {
        guard !usage.isEmpty else { return nil }
        var input = usage.input
        var output = usage.output
        switch shape {
        case .anthropic, .bedrockConverse:
            input = input.map { $0 + (usage.cacheRead ?? 0) + (usage.cacheCreation ?? 0) }
        case .gemini:
            output = output.map { $0 + (usage.reasoning ?? 0) }
        default:
            break
        }
        return GenAIUsage(
            inputTokens: input, outputTokens: output, cacheReadInputTokens: usage.cacheRead,
            cacheCreationInputTokens: usage.cacheCreation, reasoningOutputTokens: usage.reasoning
        )
    }
}
