import Foundation
import HTTPCore
import HTTPCoreObservation

/// The reading of one LLM call, as ``GenAIRecognizer`` begins it: a streamed response's head,
/// chunks and messages go to its ``GenAIResponseTap``; the end makes the call's
/// ``GenAIExchangeRecord``, which derives the facts when first asked.
struct GenAIReading: HTTPExchangeReading {
    let recognition: GenAIRecognition
    /// The tap of a streamed response, once its head arrived; `nil` for a buffered call.
    private(set) var tap: GenAIResponseTap?

    init(_ recognition: GenAIRecognition) {
        self.recognition = recognition
    }

    mutating func readHead(_ head: HTTPResponse.Head, carriesMessages: Bool) {
        tap = GenAIResponseTap(
            recognition, headers: head.headers, began: 0,
            keepsBody: !carriesMessages && GenAIResponseTap.keepsBody(ofType: head.headers["Content-Type"])
        )
    }

    mutating func readChunk(_ chunk: ArraySlice<UInt8>) {
        tap?.keep(chunk)
    }

    mutating func readMessage(eventType: String?, data: Data, isTruncated: Bool, secondsSinceAttemptBegan: Double) {
        tap?.read(
            eventType: eventType, data: data, isTruncated: isTruncated,
            arrivedAt: UInt64(max(0, secondsSinceAttemptBegan) * 1_000_000_000)
        )
    }

    func finish(request: HTTPRequest, response: HTTPResponse?, error: HTTPError?, policy: HTTPCorePolicy) -> (any HTTPExchangeAttachment)? {
        let read: GenAIExchangeRecord.Response = tap.map { .streamed(head: response, read: $0) } ?? .whole(response)
        return GenAIExchangeRecord(recognition, request: request, policy: policy, response: read, error: error)
    }
}
