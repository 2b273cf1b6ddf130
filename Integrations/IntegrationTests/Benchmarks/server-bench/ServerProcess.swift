import Foundation
import HTTPCoreTestPeers

/// The parent's handle on the server child (``BenchmarkServer``): this executable run again
/// with `--serve`, so none of the server's CPU time or allocations count as the client's.
///
/// The child gets this process's environment without `LD_PRELOAD`, so it never loads the
/// allocation counter for its own sake. It stops when ``stop()`` closes its standard input,
/// or when this process dies (its standard input closes then too).
final class ServerProcess {
    /// The loopback port the server listens on.
    let port: Int
    /// The running child.
    private let process: Process
    /// The child's standard input; closing it stops the server.
    private let input: Pipe

    /// Launches the server and waits for the line that gives its port; throws when the
    /// child cannot start or exits before listening.
    init() throws {
        process = Process()
        process.executableURL = ChildProcess.executableURL
        process.arguments = [BenchmarkServer.flag]
        var environment = ProcessInfo.processInfo.environment
        environment["LD_PRELOAD"] = nil
        process.environment = environment
        input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        var received = Data()
        while !received.contains(UInt8(ascii: "\n")) {
            let chunk = output.fileHandleForReading.availableData
            guard !chunk.isEmpty else { break }
            received.append(chunk)
        }
        let line = String(decoding: received, as: UTF8.self).split(separator: "\n").first ?? ""
        guard line.hasPrefix("port "), let port = Int(line.dropFirst(5)) else {
            process.waitUntilExit()
            throw ServerBenchError("the server child did not start (status \(process.terminationStatus)): \(line)")
        }
        self.port = port
    }

    /// The URL of the body of `size` bytes.
    func url(size: Int) -> URL {
        URL(string: "http://127.0.0.1:\(port)/\(size)")!
    }

    /// The CPU time the server used so far (user plus system), in microseconds; `nil`
    /// where `/proc` cannot tell.
    func cpuMicroseconds() -> Double? {
        ProcStat.processMicroseconds(pid: process.processIdentifier)
    }

    /// Stops the server and waits for it to exit.
    func stop() {
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
    }
}
