@testable import HTTPCore
@testable import HTTPCoreObservation
@testable import HTTPCoreGenAI
import Foundation
import HTTPCoreTestPeers
import XCTest

extension GenAIFixture {
    /// The exchange derived from the fixture by `recognizer`; fails the test when the request
    /// is not recognised.
    func exchange(
        recognizer: GenAIRecognizer = .standard, file: StaticString = #filePath, line: UInt = #line
    ) throws -> GenAIExchange {
        let call = try XCTUnwrap(recognizer.recognize(method: .post, url: URL(string: url)!), "not recognised", file: file, line: line)
        var reader = GenAIResponseReader(call)
        reader.read(headers: responseHeaders)
        if isStream {
            for (index, message) in messages.enumerated() {
                reader.read(eventType: message.eventType, data: message.data, arrivedAfter: firstMessageAt + Double(index) * messageSpacing)
            }
        } else {
            reader.read(body: Data(responseBody.utf8))
        }
        return GenAIExchange(
            recognition: call, request: GenAIRequestParameters(body: Data(requestBody.utf8), for: call), response: reader.response
        )
    }

    /// The stream's complete messages, split by the package's parser; an unfinished last
    /// event (a cut stream) is left out, as a reader of the stream would.
    var messages: [StreamMessageParser.Message] {
        guard var parser = StreamMessageParser(contentType: contentType, maxBytes: 1 << 20) else { return [] }
        var messages: [StreamMessageParser.Message] = []
        parser.feed(Array(responseBody.utf8)[...]) { messages.append($0) }
        parser.finish { messages.append($0) }
        return messages
    }
}

/// Asserts `exchange`'s attributes are exactly `expected`: the same names, in the same order,
/// with the same values.
func assertAttributes(
    _ exchange: GenAIExchange, _ expected: [(String, HTTPExchangeNote.Value)], file: StaticString = #filePath, line: UInt = #line
) {
    let actual = exchange.attributes
    XCTAssertEqual(actual.map(\.name), expected.map(\.0), "names", file: file, line: line)
    for (got, want) in zip(actual, expected) where got.name == want.0 {
        XCTAssertEqual(got.value, want.1, got.name, file: file, line: line)
    }
}

/// A middleware that sends each request to another URL, its streamed body passed on as it is:
/// a gateway that moves a call to, or away from, an LLM provider.
struct URLRewritingMiddleware: HTTPMiddleware {
    let url: URL

    func intercept(
        _ request: HTTPRequest, body: HTTPBody?, context: HTTPMiddlewareContext, next: HTTPMiddlewareNext
    ) async throws -> (HTTPResponse.Head, HTTPBody) {
        var request = request
        request.url = url
        return try await next(request, body)
    }
}

extension GenAIResponseTap {
    /// Takes `message`, split by the package's parser, as a body tap hands it over.
    mutating func read(_ message: StreamMessageParser.Message, arrivedAt uptime: UInt64) {
        read(eventType: message.eventType, data: message.data, isTruncated: message.isTruncated, arrivedAt: uptime)
    }
}
