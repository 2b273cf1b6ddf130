import Dispatch
import Foundation
import HTTPCoreConcurrency

/// Runs a fuzz run's cases in child processes, so that a case that crashes the process or
/// hangs it is caught and named, and the run goes on with the next case.
///
/// The child is the test binary itself, limited to one entry-point test: it runs cases from
/// a start index with ``runCases(fuzzer:)`` and writes a line before and after each. When a
/// child dies, or writes nothing for the hang limit (it is then killed), the case it
/// had started is reported, and a new child starts after it.
///
/// Environment: `HTTPCORE_FUZZ_CASES` sets how many cases a run has (the caller's default
/// otherwise: a few seconds' worth in `swift test`, more in `.ci/stress`), and
/// `HTTPCORE_FUZZ_SEED` its seed (a fixed one otherwise, so a run is the same on every machine).
public enum RequestFuzzProcess {
    /// How long a child may stay silent before its case counts as a hang, by default: a
    /// minute, which only bounds a hang on a busy machine; a case takes milliseconds.
    public static let defaultHangLimit: TimeInterval = 60

    /// What one run found.
    public struct Report: CustomStringConvertible {
        /// How many cases ended, in any way.
        public var completed = 0
        /// The cases that crashed their process, hung, or broke a rule, each named.
        public var findings: [String] = []
        /// How many child processes ran.
        public var children = 0

        /// A summary, with every finding on a line of its own.
        public var description: String {
            (["\(completed) cases in \(children) processes, \(findings.count) findings"] + findings).joined(separator: "\n")
        }
    }

    private static let startMark = "FUZZ START "
    private static let endMark = "FUZZ END "
    private static let violationMark = "FUZZ VIOLATION "
    private static let doneMark = "FUZZ DONE"

    /// The seed of a run: `HTTPCORE_FUZZ_SEED`, or a fixed one.
    public static var seed: UInt64 {
        ProcessInfo.processInfo.environment["HTTPCORE_FUZZ_SEED"].flatMap(UInt64.init) ?? 0x5EED_F022
    }

    #if os(Linux)
    /// Runs `cases` cases in children of this test binary, each limited to `entryPoint`
    /// (`Target.Class/testMethod`), which calls ``runCases(fuzzer:)``.
    ///
    /// Linux only: children are started with `posix_spawn` and reaped with `waitpid`, since
    /// Foundation's `Process` once left a crashed child a zombie with `waitUntilExit()` never
    /// returning (under the thread sanitizer).
    public static func run(cases defaultCount: Int, entryPoint: String, hangLimit: TimeInterval = defaultHangLimit) throws -> Report {
        let count = ProcessInfo.processInfo.environment["HTTPCORE_FUZZ_CASES"].flatMap(Int.init) ?? defaultCount
        var report = Report()
        var next = 0
        while next < count {
            report.children += 1
            let child = try launch(entryPoint: entryPoint, start: next, count: count - next)
            var started: String?
            var finished = false
            // The limit holds inside a case; a child starting up on a busy machine gets the default.
            while let line = child.nextLine(within: started == nil ? max(hangLimit, defaultHangLimit) : hangLimit) {
                if line.hasPrefix(startMark) {
                    started = String(line.dropFirst(startMark.count))
                } else if line.hasPrefix(endMark) {
                    started = nil
                    report.completed += 1
                    next += 1
                } else if line.hasPrefix(violationMark) {
                    started = nil
                    report.completed += 1
                    next += 1
                    report.findings.append("broke a rule: " + line.dropFirst(violationMark.count))
                } else if line == doneMark {
                    finished = true
                }
            }
            let ending = child.finish()
            if finished, ending.status == 0 { break }
            guard let started else {
                report.findings.append("the child process ended outside a case (\(ending)): \(child.errorOutput)")
                break
            }
            report.completed += 1
            next += 1
            report.findings.append("\(ending.hung ? "hung" : "crashed (\(ending))"): case \(started)\n\(child.errorOutput)")
        }
        return report
    }

    private static func launch(entryPoint: String, start: Int, count: Int) throws -> Child {
        var environment = ProcessInfo.processInfo.environment
        environment["HTTPCORE_FUZZ_CHILD_START"] = String(start)
        environment["HTTPCORE_FUZZ_CHILD_COUNT"] = String(count)
        environment["HTTPCORE_FUZZ_SEED"] = String(seed)
        // A trap's message is enough to name it; the runtime's backtracer, which stops every
        // thread, can hang a child under the thread sanitizer instead of letting it die.
        environment["SWIFT_BACKTRACE"] = "enable=no"
        return try Child(executable: CommandLine.arguments[0], arguments: [entryPoint], environment: environment)
    }
    #endif

    /// In a child, runs the cases its parent asked for through `fuzzer` and reports each on
    /// standard output; outside a child (no `HTTPCORE_FUZZ_CHILD_START`), does nothing.
    public static func runCases(fuzzer: RequestFuzzer) async {
        await runCases(port: fuzzer.port) { try await fuzzer.run($0) }
    }

    /// In a child, runs the cases its parent asked for, aimed at `port`, through `run`, and
    /// reports each on standard output; outside a child, does nothing.
    public static func runCases(port: UInt16, run: (RequestFuzzCase) async throws -> String) async {
        let environment = ProcessInfo.processInfo.environment
        guard let start = environment["HTTPCORE_FUZZ_CHILD_START"].flatMap(Int.init),
            let count = environment["HTTPCORE_FUZZ_CHILD_COUNT"].flatMap(Int.init)
        else { return }
        for index in start..<(start + count) {
            let fuzzCase = RequestFuzzCase(index: index, seed: seed, port: port)
            write(startMark + oneLine(fuzzCase.description))
            do {
                write(endMark + "#\(index) " + oneLine(try await run(fuzzCase)))
            } catch {
                write(violationMark + oneLine("\(error)"))
            }
        }
        write(doneMark)
    }

    /// A line written at once, unbuffered, so a crash right after it cannot lose it.
    private static func write(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }

    private static func oneLine(_ text: String) -> String {
        String(text.prefix(600)).replacingOccurrences(of: "\n", with: "\\n").replacingOccurrences(of: "\r", with: "\\r")
    }
}

#if os(Linux)
/// A running child: its standard output read line by line on a thread of its own, its
/// standard error kept in a file.
private final class Child: @unchecked Sendable {  // `hung` is used on the parent's thread alone.
    /// How the child ended.
    struct Ending: CustomStringConvertible {
        var status: Int32
        var signalled: Bool
        var hung: Bool

        var description: String { hung ? "killed after a silence" : signalled ? "signal \(status)" : "status \(status)" }
    }

    private let pid: pid_t
    private let errorFile: URL
    // Guarded by `lines`' lock; `arrived` counts what it holds, and the end.
    private let lines = Locked<(pending: [String], ended: Bool)>(([], false))
    private let arrived = DispatchSemaphore(value: 0)
    private var hung = false

    init(executable: String, arguments: [String], environment: [String: String]) throws {
        errorFile = FileManager.default.temporaryDirectory.appendingPathComponent("httpcore-fuzz-\(UUID().uuidString).err")
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { throw ChildProcess.Failure(description: "no pipe for a fuzz child: errno \(errno)") }
        // Closed on exec, so that no other child holds this one's output open.
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, ends[1], 1)
        posix_spawn_file_actions_addopen(&actions, 2, errorFile.path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, executable, &actions, nil, argv, envp)
        close(ends[1])
        guard spawned == 0 else {
            close(ends[0])
            throw ChildProcess.Failure(description: "could not start a fuzz child: error \(spawned)")
        }
        self.pid = pid
        let reader = FileHandle(fileDescriptor: ends[0], closeOnDealloc: true)
        Thread.detachNewThread { [self] in
            var buffer = Data()
            while true {
                let data = reader.availableData
                if data.isEmpty { break }
                buffer.append(data)
                while let newline = buffer.firstIndex(of: 0x0A) {
                    let line = String(decoding: buffer[buffer.startIndex..<newline], as: UTF8.self)
                    buffer.removeSubrange(buffer.startIndex...newline)
                    lines.withLock { $0.pending.append(line) }
                    arrived.signal()
                }
            }
            lines.withLock { $0.ended = true }
            arrived.signal()
        }
    }

    /// The next line, or `nil` at the end of the output or after `limit` seconds of silence
    /// (the child is then killed).
    func nextLine(within limit: TimeInterval) -> String? {
        while true {
            let (line, ended) = lines.withLock { state -> (String?, Bool) in
                state.pending.isEmpty ? (nil, state.ended) : (state.pending.removeFirst(), false)
            }
            if let line { return line }
            if ended { return nil }
            if arrived.wait(timeout: .now() + limit) == .timedOut {
                hung = true
                kill(pid, SIGKILL)
                return nil
            }
        }
    }

    /// Waits for the child to end and tells how it did.
    func finish() -> Ending {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1, errno == EINTR {}
        let signal = status & 0x7F
        return Ending(status: signal == 0 ? (status >> 8) & 0xFF : signal, signalled: signal != 0, hung: hung)
    }

    /// The start of what the child wrote to standard error: a trap's message and the top of
    /// its backtrace.
    var errorOutput: String {
        let text = (try? String(contentsOf: errorFile, encoding: .utf8)) ?? ""
        return String(text.prefix(2_000))
    }

    deinit {
        try? FileManager.default.removeItem(at: errorFile)
    }
}
#endif
