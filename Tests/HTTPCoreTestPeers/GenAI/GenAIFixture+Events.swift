import Foundation
import HTTPCore
import HTTPCoreObservation
import HTTPCoreGenAI

extension GenAIFixture {
    /// The succeeded event of an Anthropic stream answered with status 200 that ended with an
    /// `overloaded_error` event: HTTP says success, the provider said it failed. Started at
    /// 1,800,000,000 s after 1970, ended 2 s later.
    public static func providerErrorUnderA200() throws -> HTTPEvent {
        let request = HTTPRequest(method: .post, url: URL(string: "https://api.anthropic.com/v1/messages")!)
        guard let recognition = GenAIRecognizer.standard.recognize(request) else {
            throw CocoaError(.featureUnsupported, userInfo: [NSDebugDescriptionErrorKey: "Anthropic's messages endpoint is not recognised"])
        }
        let call = GenAIExchange(
            recognition: recognition,
            request: GenAIRequestParameters(model: "claude-sonnet-4", stream: true),
            response: GenAIResponse(errorCode: "overloaded_error", messageCount: 3), statusCode: 200, error: nil
        )
        let response = HTTPResponse(requestID: request.id, statusCode: 200, headers: [:], body: Data(), url: request.url)
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        return .requestSucceeded(response, to: request, startedAt: start, endedAt: start + 2, attachments: [call])
    }
}
