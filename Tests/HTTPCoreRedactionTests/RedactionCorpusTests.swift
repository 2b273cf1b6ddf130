import Foundation
import HTTPCoreRedaction
import HTTPCoreTestPeers
import XCTest

/// The precision corpus: real API shapes, each with its secrets named. At `.standard` every
/// secret is masked and every other value comes out byte-identical, with its type.
final class RedactionCorpusTests: XCTestCase {
    func testTheCorpusHoldsSixtyRealShapesEachReadable() {
        let fixtures = RedactionCorpus.all
        XCTAssertGreaterThanOrEqual(fixtures.count, 60)
        XCTAssertEqual(Set(fixtures.map(\.name)).count, fixtures.count, "names are unique")
        for fixture in fixtures {
            let outcome = RedactionCorpus.outcome(of: fixture, .none)
            XCTAssertGreaterThan(outcome.valueCount, 1, "\(fixture.name): its values are read")
            XCTAssertTrue(outcome.overMasked.isEmpty, "\(fixture.name): nothing changes at .none")
            // Each named secret is one of the values read, so the checks below see it.
            XCTAssertEqual(outcome.underMasked.count >= fixture.secrets.count, true, "\(fixture.name): \(outcome.underMasked)")
        }
        XCTAssertGreaterThanOrEqual(fixtures.filter { !$0.secrets.isEmpty }.count, 20)
    }

    func testStandardMasksEverySecretAndKeepsEveryOtherValue() {
        for outcome in RedactionCorpus.outcomes(.standard, fixtures: RedactionFixture.platformCorpus + RedactionFixture.identityCorpus) {
            XCTAssertEqual(outcome.underMasked, [], "\(outcome.fixture): secrets shown")
            XCTAssertEqual(outcome.overMasked, [], "\(outcome.fixture): values changed that hold no secret")
        }
    }

    /// LLM traffic without the GenAI interpreter: every secret masked still; its generated
    /// text under `token` names is masked too, which the interpreter's exceptions prevent
    /// (HTTPCoreGenAITests, `GenAIGeneratedTextRedactionTests`).
    func testStandardWithoutTheGenAIExceptionsMasksEverySecretOfTheLLMCorpus() {
        for outcome in RedactionCorpus.outcomes(.standard, fixtures: RedactionFixture.llmCorpus) {
            XCTAssertEqual(outcome.underMasked, [], "\(outcome.fixture): secrets shown")
        }
    }

    func testStrictMasksEverySecretToo() {
        for outcome in RedactionCorpus.outcomes(.strict) {
            XCTAssertEqual(outcome.underMasked, [], "\(outcome.fixture): secrets shown")
        }
    }
}
