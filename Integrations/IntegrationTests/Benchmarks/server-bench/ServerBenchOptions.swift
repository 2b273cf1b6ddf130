/// The command line: which cells and variants to measure, how many rounds, where the JSON goes.
///
/// `bare` always runs, added first when `--variants` leaves it out: every ratio is against
/// bare in the same round.
struct ServerBenchOptions {
    /// One round, fewer requests: the whole matrix in under a minute, for a smoke check.
    var quick = false
    /// Rounds of every variant; 5 by default, 1 with `--quick`.
    var rounds: Int?
    /// Requests per variant and round for every cell, instead of ``ServerBenchRun``'s
    /// per-cell defaults.
    var requestsPerRound: Int?
    /// Concurrent callers of each cell.
    var concurrencies = [1, 16, 64]
    /// Response body sizes in bytes.
    var sizes = [ResponseSize.small, ResponseSize.large]
    /// The variants measured, in the order each round runs them; `bare` is first.
    var variants = ClientVariant.allCases
    /// Where the JSON report is written.
    var jsonPath = "server-bench-results.json"

    /// The help text, also printed after a mistake.
    static let usage = """
        usage: server-bench [--quick] [--rounds N] [--requests N] [--concurrency 1,16,64]
                            [--size 64,65536] [--variants \(ClientVariant.allCases.map(\.rawValue).joined(separator: ","))]
                            [--json PATH]
          --size takes bytes (or small = 64, large = 65536); bare always runs, as the reference.
          e.g. one cell: server-bench --concurrency 16 --size 64 --variants bare,httpcore,full --rounds 5
        """

    /// Parses the arguments after the executable's name; throws with the usage on a mistake.
    init(arguments: [String]) throws {
        var remaining = arguments[...]
        func value(_ name: String) throws -> String {
            guard let value = remaining.popFirst() else { throw ServerBenchError("\(name) needs a value\n" + Self.usage) }
            return value
        }
        func positiveIntegers(_ name: String, _ text: String) throws -> [Int] {
            let numbers = text.split(separator: ",").map { Int($0) ?? 0 }
            guard !numbers.isEmpty, numbers.allSatisfy({ $0 > 0 }) else { throw ServerBenchError("bad \(name) \(text)\n" + Self.usage) }
            return numbers
        }
        while let argument = remaining.popFirst() {
            switch argument {
            case "--quick":
                quick = true
            case "--rounds":
                rounds = try positiveIntegers(argument, try value(argument))[0]
            case "--requests":
                requestsPerRound = try positiveIntegers(argument, try value(argument))[0]
            case "--concurrency":
                concurrencies = try positiveIntegers(argument, try value(argument))
            case "--size":
                let text = try value(argument)
                let named = text.replacingOccurrences(of: "small", with: "\(ResponseSize.small)")
                    .replacingOccurrences(of: "large", with: "\(ResponseSize.large)")
                sizes = try positiveIntegers(argument, named)
                guard sizes.allSatisfy(ResponseSize.all.contains) else {
                    throw ServerBenchError("the server answers \(ResponseSize.all.map(String.init).joined(separator: " or ")) bytes, not \(text)\n" + Self.usage)
                }
            case "--variants":
                let text = try value(argument)
                let names = text.split(separator: ",").map(String.init)
                let selected = names.compactMap(ClientVariant.init(rawValue:))
                guard !selected.isEmpty, selected.count == names.count else { throw ServerBenchError("bad --variants \(text)\n" + Self.usage) }
                // In the canonical order, bare first.
                variants = ClientVariant.allCases.filter { $0 == .bare || selected.contains($0) }
            case "--json":
                jsonPath = try value(argument)
            case "-h", "--help":
                throw ServerBenchError(Self.usage)
            default:
                throw ServerBenchError("unknown argument \(argument)\n" + Self.usage)
            }
        }
    }
}
