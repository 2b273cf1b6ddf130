import Foundation
import HTTPCore

/// The precision corpus measured against a redactor: which secrets came out (under-masked)
/// and which other values did not come out as they went in (over-masked).
public enum RedactionCorpus {
    /// Every fixture.
    public static var all: [RedactionFixture] {
        RedactionFixture.llmCorpus + RedactionFixture.platformCorpus + RedactionFixture.identityCorpus
    }

    /// What a redactor did to one fixture.
    public struct Outcome: Sendable {
        /// The fixture's name.
        public var fixture: String
        /// How many values the body holds, secrets included.
        public var valueCount = 0
        /// How many of them hold a secret.
        public var secretValueCount = 0
        /// The values that changed although they hold no secret, as `path: before -> after`.
        public var overMasked: [String] = []
        /// The secrets that came out, and where.
        public var underMasked: [String] = []
    }

    /// The outcome of every fixture.
    public static func outcomes(_ redactor: Redactor, fixtures: [RedactionFixture] = all) -> [Outcome] {
        fixtures.map { outcome(of: $0, redactor) }
    }

    /// What `redactor` does to `fixture`'s body.
    public static func outcome(of fixture: RedactionFixture, _ redactor: Redactor) -> Outcome {
        let output = String(decoding: redactor.redactedBody(Data(fixture.body.utf8), contentType: fixture.contentType), as: UTF8.self)
        let before = CorpusValues.values(of: fixture.body, contentType: fixture.contentType)
        let after = Dictionary(CorpusValues.values(of: output, contentType: fixture.contentType).map { ($0.path, $0.value) }) { first, _ in first }
        var outcome = Outcome(fixture: fixture.name)
        outcome.valueCount = before.count
        func holdsSecret(_ text: String) -> Bool { fixture.secrets.contains { text.contains($0) } }
        for value in before {
            if holdsSecret(value.value.text) {
                outcome.secretValueCount += 1
                if let masked = after[value.path], holdsSecret(masked.text) { outcome.underMasked.append("\(value.path): \(masked.text)") }
            } else if after[value.path] != value.value {
                outcome.overMasked.append("\(value.path): \(value.value) -> \(after[value.path].map(String.init(describing:)) ?? "(gone)")")
            }
        }
        for secret in fixture.secrets where output.contains(secret) && !outcome.underMasked.contains(where: { $0.contains(secret) }) {
            outcome.underMasked.append("in the output: \(secret)")
        }
        return outcome
    }
}
