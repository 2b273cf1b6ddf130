#if os(macOS) || os(Linux)
import Foundation

/// CPython's `http.server` serving a temporary folder on 127.0.0.1: a real server that is not
/// this package's own, for conformance checks of transports.
///
/// Needs `python3` on the `PATH`. Files: `hello.txt` (`hello from python\n`) and `blob.bin`
/// (1 MiB of the bytes 0 to 255, repeating).
public final class PythonHTTPServer: Sendable {
    /// The port the server listens on.
    public let port: Int
    private let process: Process
    private let folder: URL

    /// The contents of `hello.txt`.
    public static let hello = Data("hello from python\n".utf8)
    /// The contents of `blob.bin`.
    public static let blob = Data((0..<(1024 * 1024)).map { UInt8($0 % 256) })

    /// Why the server could not start.
    public struct StartError: Error, CustomStringConvertible {
        /// What went wrong.
        public let description: String
    }

    /// Starts the server and returns once it listens.
    public init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("python-http-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Self.hello.write(to: folder.appendingPathComponent("hello.txt"))
        try Self.blob.write(to: folder.appendingPathComponent("blob.bin"))
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-u", "-m", "http.server", "0", "--bind", "127.0.0.1", "--directory", folder.path]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            throw StartError(description: "python3 could not be started: \(error)")
        }
        // "Serving HTTP on 127.0.0.1 port 41234 (http://127.0.0.1:41234/) ..."
        var text = ""
        while !text.contains("\n") {
            let chunk = output.fileHandleForReading.availableData
            guard !chunk.isEmpty else { break }
            text += String(decoding: chunk, as: UTF8.self)
        }
        guard let range = text.range(of: "port "), let port = Int(text[range.upperBound...].prefix { $0.isNumber }) else {
            process.terminate()
            throw StartError(description: "python3 -m http.server did not say its port: \(text)")
        }
        self.port = port
    }

    /// `http://127.0.0.1:PORT/path`.
    public func url(_ path: String) -> URL {
        URL(string: "http://127.0.0.1:\(port)\(path)")!
    }

    /// Stops the server and removes its folder.
    public func stop() {
        if process.isRunning {
            // SIGKILL: http.server may be inside a request when SIGTERM comes, and Foundation's
            // wait for an exit never returns if the child outlives it.
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(at: folder)
    }

    deinit {
        stop()
    }
}
#endif
