import Foundation
import HTTPCore
@testable import HTTPCoreGenAI
import XCTest

/// A call's text facts, masked as the body values they were read from would be.
final class GenAIExchangeRedactionTests: XCTestCase {
    private static let key = "sk-proj-AbCdEf12GhIj34KlMnOp56QrStUv78WxYz90"

    /// An OpenAI chat call with every text fact set, and some numbers.
    private func call(model: String = "gpt-4o-mini", url: String = "https://api.openai.com/v1/chat/completions") throws -> GenAIExchange {
        let recognition = try XCTUnwrap(GenAIRecognizer.standard.recognize(method: .post, url: URL(string: url)!))
        var call = GenAIExchange(
            recognition: recognition,
            request: GenAIRequestParameters(model: model, maxTokens: 256, temperature: 0.2, stopSequences: ["\n\nHuman:"]),
            response: GenAIResponse(
                id: "chatcmpl-B9MBs8CjcvOU2jLn4n570S5qMJKcT", model: "gpt-4o-mini-2024-07-18", finishReasons: ["stop"],
                providerFinishReasons: ["stop"], usage: GenAIUsage(inputTokens: 12, outputTokens: 34), errorCode: "rate_limit_exceeded"
            )
        )
        call.recognition.modelInPath = nil
        return call
    }

    func testOrdinaryFactsAreKeptAtStandard() throws {
        let call = try call()
        XCTAssertEqual(call.redacted(by: .standard), call)
    }

    func testAKeyPastedAsTheModelIsMaskedAndTheOtherFactsKept() throws {
        let call = try call(model: Self.key)
        let masked = call.redacted(by: .standard)
        XCTAssertEqual(masked.request.model, Redactor.mask)
        XCTAssertEqual(masked.spanName, "chat [REDACTED]")
        var expected = call
        expected.request.model = Redactor.mask
        XCTAssertEqual(masked, expected)
    }

    func testAKeyInAGeminiModelPathIsMasked() throws {
        let key = "AIzaSyA1b2C3d4E5f6G7h8I9j0KlMnOpQrStUvW"
        let recognition = try XCTUnwrap(GenAIRecognizer.standard.recognize(
            method: .post, url: URL(string: "https://generativelanguage.googleapis.com/v1beta/models/\(key):generateContent")!
        ))
        let call = GenAIExchange(
            recognition: recognition, request: GenAIRequestParameters(body: nil, for: recognition), response: GenAIResponse()
        )
        XCTAssertEqual(call.recognition.modelInPath, key)
        let masked = call.redacted(by: .standard)
        XCTAssertEqual(masked.recognition.modelInPath, Redactor.mask)
        XCTAssertEqual(masked.request.model, Redactor.mask)
    }

    func testASensitiveStopNameMasksTheStopSequencesWhateverTheProvidersSpelling() throws {
        for name in ["stop", "stop_sequences", "stopSequences"] {
            let masked = try call().redacted(by: Redactor(sensitiveBodyKeys: [name]))
            XCTAssertEqual(masked.request.stopSequences, [Redactor.mask], name)
            XCTAssertEqual(masked.request.model, "gpt-4o-mini", name)
        }
    }

    func testStrictMasksEveryTextFactAndKeepsNumbers() throws {
        let call = try call()
        let masked = call.redacted(by: .strict)
        XCTAssertEqual(masked.request.model, Redactor.mask)
        XCTAssertEqual(masked.request.stopSequences, [Redactor.mask])
        XCTAssertEqual(masked.response.id, Redactor.mask)
        XCTAssertEqual(masked.response.model, Redactor.mask)
        XCTAssertEqual(masked.response.finishReasons, [Redactor.mask])
        XCTAssertEqual(masked.response.providerFinishReasons, [Redactor.mask])
        XCTAssertEqual(masked.response.errorCode, Redactor.mask)
        XCTAssertEqual(masked.errorType, Redactor.mask, "the error type was the provider's code")
        XCTAssertEqual(masked.request.maxTokens, 256)
        XCTAssertEqual(masked.request.temperature, 0.2)
        XCTAssertEqual(masked.response.usage, GenAIUsage(inputTokens: 12, outputTokens: 34))
        XCTAssertEqual(masked.recognition.provider, .openAI)
        XCTAssertEqual(masked.recognition.serverAddress, "api.openai.com")
    }

    func testAnErrorTypeThatIsNotTheProvidersCodeIsKept() throws {
        var call = try call()
        call.response.errorCode = nil
        call.errorType = "timeout"
        XCTAssertEqual(call.redacted(by: .strict).errorType, "timeout")
    }

    func testAnAllowedKeyKeepsItsFactAtStrict() throws {
        let masked = try call().redacted(by: Redactor(level: .strict, allowedBodyKeys: ["model"]))
        XCTAssertEqual(masked.request.model, "gpt-4o-mini")
        XCTAssertEqual(masked.response.model, "gpt-4o-mini-2024-07-18")
        XCTAssertEqual(masked.response.id, Redactor.mask)
    }

    func testMaskingTwiceByTheSameRedactorChangesNothing() throws {
        for redactor in [Redactor.standard, .strict, Redactor(sensitiveBodyKeys: ["stop"])] {
            let once = try call(model: Self.key).redacted(by: redactor)
            XCTAssertEqual(once.redacted(by: redactor), once, redactor.level.rawValue)
        }
    }
}
