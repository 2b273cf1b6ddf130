import Foundation
import DevSeeServer
import HTTPCoreConcurrency

/// `swift run devsee-tail`: a dev-see log server in the terminal, for servers and Linux
/// machines without the desktop app. See ``TailOptions/usage``.
@main
enum DevSeeTail {
    static func main() async {
        let colorByDefault = isatty(STDOUT_FILENO) == 1 && ProcessInfo.processInfo.environment["NO_COLOR"] == nil
        let status = await run(
            arguments: Array(CommandLine.arguments.dropFirst()),
            colorByDefault: colorByDefault,
            output: { line in
                FileHandle.standardOutput.write(Data((line + "\n").utf8))
            },
            status: { line in
                FileHandle.standardError.write(Data((line + "\n").utf8))
            },
            until: waitForInterrupt
        )
        exit(status)
    }

    /// Runs the tool: parses `arguments`, listens, writes each matching log to `output` and
    /// status lines to `status`, until `until` returns. Returns the exit status: 0, 64 for a
    /// bad command line, 1 when the port cannot be bound.
    static func run(
        arguments: [String],
        colorByDefault: Bool,
        output: @escaping @Sendable (String) -> Void,
        status: @escaping @Sendable (String) -> Void,
        until stop: @escaping @Sendable (_ port: UInt16) async -> Void
    ) async -> Int32 {
        let options: TailOptions
        do {
            options = try TailOptions.parse(arguments, colorByDefault: colorByDefault)
        } catch {
            status("devsee-tail: \(error)\n\n\(TailOptions.usage)")
            return 64
        }
        if options.showsHelp {
            output(TailOptions.usage)
            return 0
        }
        let formatter = LogLineFormatter(usesColor: options.usesColor, isVerbose: options.isVerbose)
        let receiver: DevSeeReceiver
        do {
            receiver = try DevSeeReceiver(port: options.port, keepsHistory: false) { entry in
                guard let log = StoredLog(json: entry), LogFilter.log(log, passes: options.filters) else { return }
                output(options.isJSON ? String(decoding: entry, as: UTF8.self) : formatter.format(log))
            }
        } catch {
            status("devsee-tail: cannot listen on 127.0.0.1:\(options.port): \(error) (is the dev-see app or another devsee-tail running?)")
            return 1
        }
        status("devsee-tail: listening on \(receiver.baseURL) (DevSeeLoggerConfiguration serverURL); Ctrl-C to stop")
        await stop(receiver.port)
        receiver.stop()
        return 0
    }

    /// Returns when the process gets SIGINT or SIGTERM.
    private static func waitForInterrupt(_ port: UInt16) async {
        let isResumed = Locked(false)
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let sources = [SIGINT, SIGTERM].map { number in
                signal(number, SIG_IGN)
                let source = DispatchSource.makeSignalSource(signal: number)
                source.setEventHandler {
                    let isFirst = isResumed.withLock { wasResumed in
                        defer { wasResumed = true }
                        return !wasResumed
                    }
                    if isFirst { continuation.resume() }
                }
                source.resume()
                return source
            }
            signalSources.withLock { $0 = sources }
        }
    }

    /// The signal sources, alive for the life of the process.
    private static let signalSources = Locked<[any DispatchSourceSignal]>([])
}
