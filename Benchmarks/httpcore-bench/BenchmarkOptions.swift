import Foundation

/// The command line: `httpcore-bench [--quick] [--json PATH] [--only SECTION,...] [--rows TEXT]`.
///
/// `--rows TEXT` keeps only the redaction rows whose label contains `TEXT`, to profile one masker.
///
/// `--section memory` is internal: the memory section relaunches the executable with it to
/// measure in a fresh process.
struct BenchmarkOptions {
    var quick = false
    var jsonPath = "bench-results.json"
    var sections = BenchmarkSection.allCases
    var childSection: String?
    /// Only the redaction rows whose label contains this text, when set.
    var rowFilter: String?

    static let usage = "usage: httpcore-bench [--quick] [--json PATH] [--only "
        + BenchmarkSection.allCases.map(\.rawValue).joined(separator: ",") + "] [--rows TEXT]"

    /// Parses the arguments after the executable's name; throws with the usage on a mistake.
    init(arguments: [String]) throws {
        var remaining = arguments[...]
        while let argument = remaining.popFirst() {
            switch argument {
            case "--quick":
                quick = true
            case "--json":
                guard let path = remaining.popFirst() else { throw BenchmarkError(description: Self.usage) }
                jsonPath = path
            case "--only":
                let names = remaining.popFirst()?.split(separator: ",").map(String.init) ?? []
                let selected = names.compactMap(BenchmarkSection.init(rawValue:))
                guard !selected.isEmpty, selected.count == names.count else { throw BenchmarkError(description: Self.usage) }
                sections = selected
            case "--rows":
                guard let text = remaining.popFirst() else { throw BenchmarkError(description: Self.usage) }
                rowFilter = text
            case "--section":
                guard let name = remaining.popFirst() else { throw BenchmarkError(description: Self.usage) }
                childSection = name
            case "-h", "--help":
                throw BenchmarkError(description: Self.usage)
            default:
                throw BenchmarkError(description: "unknown argument \(argument)\n" + Self.usage)
            }
        }
    }
}
