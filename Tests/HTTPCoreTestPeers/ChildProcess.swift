import Foundation

/// Runs this executable again for one section (`--section NAME`), so that what a benchmark
/// measures there (a peak of resident memory) is not raised by what the parent allocated.
public enum ChildProcess {
    /// A child that could not run or failed; the message says how.
    public struct Failure: Error, CustomStringConvertible {
        /// What went wrong.
        public let description: String
    }

    /// This executable's file, which a child runs again (a benchmark that keeps a child running,
    /// as server-bench does its server, launches it with this).
    public static var executableURL: URL {
        #if os(Linux)
        let fallback = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        #else
        let fallback = URL(fileURLWithPath: CommandLine.arguments[0])
        #endif
        return Bundle.main.executableURL ?? fallback
    }

    /// Runs the child and returns the last line it printed; throws ``Failure`` when it failed.
    public static func run(section: String) throws -> String {
        #if !os(macOS) && !os(Linux)
        // iOS, tvOS and watchOS have no `Process`.
        throw Failure(description: "the \(section) section runs only on macOS and Linux")
        #else
        let process = Process()
        process.executableURL = executableURL
        process.arguments = ["--section", section]
        let output = Pipe()
        process.standardOutput = output
        do {
            try process.run()
        } catch {
            throw Failure(description: "could not launch the \(section) child process: \(error)")
        }
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let lastLine = String(decoding: data, as: UTF8.self).split(separator: "\n").last.map(String.init) ?? ""
        guard process.terminationStatus == 0 else {
            throw Failure(description: "the \(section) child process failed (status \(process.terminationStatus)): \(lastLine)")
        }
        return lastLine
        #endif
    }
}
