#if os(macOS) || os(Linux)
import Foundation

/// A Python program run as a test peer: started with `python3 -u`, it announces itself on its
/// first line of output (typically with the port it listens on) and runs until ``stop()``.
///
/// ```swift
/// let peer = try PythonPeer(arguments: ["receiver.py", "0"])   // prints "listening on 41234"
/// let port = peer.lastInteger
/// ```
public final class PythonPeer: Sendable {
    /// Why the peer could not start.
    public struct StartError: Error, CustomStringConvertible {
        /// What went wrong.
        public let description: String
    }

    /// The first line the program printed, without its line break.
    public let firstLine: String
    private let process: Process

    /// Starts `python3 -u` with `arguments` and returns once the first line is printed.
    /// Throws when python3 cannot start or exits without printing a line.
    public init(arguments: [String]) throws(StartError) {
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-u"] + arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            throw StartError(description: "python3 could not be started: \(error)")
        }
        var text = ""
        while !text.contains("\n") {
            let chunk = output.fileHandleForReading.availableData
            guard !chunk.isEmpty else { break }
            text += String(decoding: chunk, as: UTF8.self)
        }
        guard let line = text.split(separator: "\n", omittingEmptySubsequences: false).first, text.contains("\n") else {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            throw StartError(description: "python3 \(arguments.joined(separator: " ")) exited without a line: \(text)")
        }
        firstLine = String(line)
    }

    /// The last run of digits in ``firstLine``, such as the port of `listening on 41234` or
    /// of `Serving HTTP on 127.0.0.1 port 41234 (http://127.0.0.1:41234/) ...`.
    public var lastInteger: Int? {
        firstLine.split { !$0.isNumber }.last.flatMap { Int($0) }
    }

    /// Stops the program: SIGKILL, since a Python server may be inside a request when SIGTERM
    /// comes, and Foundation's wait for an exit never returns if the child outlives it.
    public func stop() {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    deinit {
        stop()
    }
}
#endif
