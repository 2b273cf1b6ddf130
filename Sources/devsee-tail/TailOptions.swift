/// The command line of `devsee-tail`.
struct TailOptions: Equatable {
    /// The port to listen on, on 127.0.0.1; 0 for any free one.
    var port: UInt16 = 9090
    /// Headers and bodies under each line.
    var isVerbose = false
    /// One JSON object per line instead of text.
    var isJSON = false
    /// ANSI colors; by default when standard output is a terminal and `NO_COLOR` is unset.
    var usesColor: Bool
    /// Logs must match every filter kind given (and any one filter of a kind).
    var filters: [LogFilter] = []
    /// Print the usage and exit.
    var showsHelp = false

    static let usage = """
        usage: devsee-tail [--port N] [--verbose] [--json] [--filter EXPR]... [--no-color]

        Runs a dev-see-compatible log server on 127.0.0.1 (port 9090 by default) and prints
        each API log as it arrives: time, method, status or failure, duration, URL and
        correlation id. Logs are the redacted payloads that DevSeeObserver and DevSeeLogger
        send; point them here with serverURL http://127.0.0.1:PORT.

        A streamed response's server-sent events or JSON lines are printed one line each as
        they arrive: #INDEX in place of the status, time since the request started, [event]
        and the data, and the request id (req N) that its exchange's final line repeats.

          --port N          listen on port N (0: any free port, shown at start)
          --verbose, -v     also print headers and bodies
          --json            print each stored log as one line of JSON
          --filter EXPR     show only matching logs; repeat to combine:
                              correlation=ID   correlation id (or request id) equal to ID
                              status=2xx       a status class (1xx-5xx)
                              status=404       one status code
                              status=failed    no response (refused, timed out, cancelled)
                              url=TEXT         URL containing TEXT (case-insensitive)
                              TEXT             same as url=TEXT
                            filters of one kind are alternatives; different kinds must all match
          --no-color        no ANSI colors (also when NO_COLOR is set or output is not a terminal)
          --help, -h        print this help

        The dev-see desktop app listens on the same port: run one or the other.
        """

    /// A command line that cannot be run, and why.
    struct UsageError: Error, Equatable, CustomStringConvertible {
        let description: String
    }

    /// Parses the arguments after the program name.
    static func parse(_ arguments: [String], colorByDefault: Bool) throws(UsageError) -> TailOptions {
        var options = TailOptions(usesColor: colorByDefault)
        var remaining = arguments[...]
        func value(for flag: String) throws(UsageError) -> String {
            guard let value = remaining.popFirst() else { throw UsageError(description: "\(flag) needs a value") }
            return value
        }
        while let argument = remaining.popFirst() {
            switch argument {
            case "--port":
                let text = try value(for: argument)
                guard let port = UInt16(text) else { throw UsageError(description: "--port must be 0-65535, not \(text)") }
                options.port = port
            case "--verbose", "-v": options.isVerbose = true
            case "--json": options.isJSON = true
            case "--no-color": options.usesColor = false
            case "--help", "-h": options.showsHelp = true
            case "--filter":
                let text = try value(for: argument)
                guard let filter = LogFilter(text) else { throw UsageError(description: "cannot read the filter \(text)") }
                options.filters.append(filter)
            default:
                throw UsageError(description: "unknown argument \(argument)")
            }
        }
        return options
    }
}
