import Foundation

/// What a ``BodyTap`` reads of a recognised LLM call's streamed response, on the reading task:
/// each complete message, with the seconds since its attempt began, or a body that is not a
/// stream of messages (a JSON answer, an error body), kept until it ends and read only when
/// the facts are first asked for (``response``).
///
/// Memory stays bounded: a kept body is dropped once it passes
/// ``HTTPCorePolicy/maximumGenAIBodyBytes``, the bound of a body read whole, so that a JSON
/// answer gives the same facts streamed as buffered; the reader bounds what it keeps of a
/// stream.
struct GenAIResponseTap: Sendable {
    private var reader: GenAIResponseReader
    /// When the attempt that got the response began, in nanoseconds of uptime: arrival times
    /// count from it, so the time to the first chunk is the request's, not the exchange's.
    private let began: UInt64
    /// The body so far, when it is kept: `nil` for a stream of messages, and once it outgrew
    /// the bound.
    private var body: Data?

    /// A tap of the response to the call `recognition` describes, whose head carried
    /// `headers`, in an attempt that began at `began` (uptime nanoseconds). `keepsBody`:
    /// whether the body is kept whole, because it is not read as messages.
    init(_ recognition: GenAIRecognition, headers: HTTPHeaders, began: UInt64, keepsBody: Bool) {
        reader = GenAIResponseReader(recognition)
        reader.read(headers: headers)
        self.began = began
        body = keepsBody ? Data() : nil
    }

    /// Whether a body of `contentType`, not read as messages, is worth keeping: a JSON answer
    /// or error, or one that does not say (an error body may not).
    static func keepsBody(ofType contentType: String?) -> Bool {
        guard let contentType else { return true }
        return contentType.range(of: "json", options: .caseInsensitive) != nil
    }

    /// Keeps a chunk of a body that is kept, while it fits.
    mutating func keep(_ chunk: ArraySlice<UInt8>) {
        guard body != nil else { return }
        if body!.count + chunk.count > HTTPCorePolicy.maximumGenAIBodyBytes {
            body = nil
        } else {
            body!.append(contentsOf: chunk)
        }
    }

    /// Reads a complete message that arrived at `uptime` (nanoseconds). A message the parser
    /// cut short, or one longer than ``HTTPCorePolicy/maximumGenAIMessageBytes`` (kept whole
    /// because the policy's messages are longer), is counted but read as nothing: its JSON,
    /// cut, would be misread, and reading a longer one would cost unbounded time.
    mutating func read(_ message: StreamMessageParser.Message, arrivedAt uptime: UInt64) {
        let seconds = Double(uptime &- began) / 1_000_000_000
        let isReadable = !message.isTruncated && message.data.count <= HTTPCorePolicy.maximumGenAIMessageBytes
        reader.read(eventType: message.eventType, data: isReadable ? message.data : Data(), arrivedAfter: seconds)
    }

    /// Bytes it keeps alive, without reading a kept body: that body, and the strings and
    /// arrays of what was read of the messages, counted without making the response.
    var retainedByteCount: Int {
        (body?.count ?? 0) + reader.retainedByteCount
    }

    /// What was read so far, a kept body included: a body cut short reads as nothing.
    var response: GenAIResponse {
        guard let body, !body.isEmpty else { return reader.response }
        var reader = reader
        reader.read(body: body)
        return reader.response
    }
}
