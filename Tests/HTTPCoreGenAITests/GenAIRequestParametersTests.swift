import Foundation
import HTTPCore
@testable import HTTPCoreGenAI
import XCTest

/// The request parameters read from bodies the fixture exchanges do not cover: only what a
/// body carries, in the fields its API names them.
final class GenAIRequestParametersTests: XCTestCase {
    private func parameters(_ body: String?, url: String) throws -> GenAIRequestParameters {
        let call = try XCTUnwrap(GenAIRecognizer.standard.recognize(method: .post, url: URL(string: url)!))
        return GenAIRequestParameters(body: body.map { Data($0.utf8) }, for: call)
    }

    func testMaxCompletionTokensIsPreferredToTheOlderMaxTokens() throws {
        let read = try parameters(#"{"model":"gpt-4o","max_tokens":100,"max_completion_tokens":300}"#, url: "https://api.openai.com/v1/chat/completions")
        XCTAssertEqual(read, GenAIRequestParameters(model: "gpt-4o", maxTokens: 300))
    }

    func testAnOllamaGenerateThatAsksNotToStream() throws {
        let read = try parameters(#"{"model":"qwen2.5","prompt":"Hi","stream":false,"options":{"num_predict":-1}}"#, url: "http://localhost:11434/api/generate")
        XCTAssertEqual(read, GenAIRequestParameters(model: "qwen2.5", maxTokens: -1, stream: false))
    }

    func testABedrockInvokeBodyInAnthropicsFormat() throws {
        let read = try parameters(
            #"{"anthropic_version":"bedrock-2023-05-31","max_tokens":300,"temperature":0.1,"messages":[{"role":"user","content":"Hi"}]}"#,
            url: "https://bedrock-runtime.us-east-1.amazonaws.com/model/anthropic.claude-3-haiku-20240307-v1%3A0/invoke"
        )
        XCTAssertEqual(read, GenAIRequestParameters(model: "anthropic.claude-3-haiku-20240307-v1:0", maxTokens: 300, temperature: 0.1))
    }

    func testAnAzureDeploymentNamesTheModelWhenTheBodyDoesNot() throws {
        let url = "https://acme.openai.azure.com/openai/deployments/gpt4o-prod/chat/completions?api-version=2024-10-21"
        XCTAssertEqual(try parameters(#"{"messages":[],"temperature":0}"#, url: url), GenAIRequestParameters(model: "gpt4o-prod", temperature: 0))
        XCTAssertEqual(try parameters("not json", url: url), GenAIRequestParameters(model: "gpt4o-prod"))
        XCTAssertEqual(try parameters(nil, url: url), GenAIRequestParameters(model: "gpt4o-prod"))
    }

    func testAGeminiRequestWithoutGenerationConfigHasOnlyItsModel() throws {
        let read = try parameters(#"{"contents":[{"parts":[{"text":"Hi"}]}]}"#, url: "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:generateContent")
        XCTAssertEqual(read, GenAIRequestParameters(model: "gemini-2.5-flash"))
    }
}
