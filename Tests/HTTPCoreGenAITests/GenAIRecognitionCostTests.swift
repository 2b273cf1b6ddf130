import Foundation
import HTTPCore
@testable import HTTPCoreGenAI
import XCTest

/// What recognition costs a request that is not an LLM call: a method check, or a host
/// comparison per row once the host is read. Prints the time per request
/// (`GENAI_COST` lines) for the performance notes; asserts only the outcome, since timings on
/// a shared machine are not a specification.
final class GenAIRecognitionCostTests: XCTestCase {
    func testRecognisingRequestsThatAreNotLLMCallsIsCheap() {
        let recognizer = GenAIRecognizer.standard
        let cases: [(String, HTTPMethod, URL)] = [
            ("GET, another host", .get, URL(string: "https://api.example.com/v1/users/42")!),
            ("POST, another host", .post, URL(string: "https://api.example.com/v1/users")!),
            ("POST, a long host", .post, URL(string: "https://telemetry.eu-central-1.internal.example-corporation.com/v2/batch")!),
            ("POST, an LLM host, another path", .post, URL(string: "https://api.openai.com/v1/files")!),
            ("POST, an LLM call", .post, URL(string: "https://api.openai.com/v1/chat/completions")!),
        ]
        let iterations = 50_000
        for (label, method, url) in cases {
            var recognised = 0
            let start = DispatchTime.now().uptimeNanoseconds
            for _ in 0..<iterations where recognizer.recognize(method: method, url: url) != nil {
                recognised += 1
            }
            let nanoseconds = Double(DispatchTime.now().uptimeNanoseconds - start) / Double(iterations)
            print("GENAI_COST \(label): \(Int(nanoseconds.rounded())) ns per request")
            XCTAssertEqual(recognised, label == "POST, an LLM call" ? iterations : 0, label)
        }
    }
}
