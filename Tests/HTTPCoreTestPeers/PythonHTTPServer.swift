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
    private let peer: PythonPeer
    private let folder: URL

    /// The contents of `hello.txt`.
    public static let hello = Data("hello from python\n".utf8)
    /// The contents of `blob.bin`.
    public static let blob = Data((0..<(1024 * 1024)).map { UInt8($0 % 256) })

    /// Why the server could not start.
    public typealias StartError = PythonPeer.StartError

    /// Starts the server and returns once it listens.
    public init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("python-http-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Self.hello.write(to: folder.appendingPathComponent("hello.txt"))
        try Self.blob.write(to: folder.appendingPathComponent("blob.bin"))
        // "Serving HTTP on 127.0.0.1 port 41234 (http://127.0.0.1:41234/) ..."
        peer = try PythonPeer(arguments: ["-m", "http.server", "0", "--bind", "127.0.0.1", "--directory", folder.path])
        guard let port = peer.lastInteger else {
            peer.stop()
            throw StartError(description: "python3 -m http.server did not say its port: \(peer.firstLine)")
        }
        self.port = port
    }

    /// `http://127.0.0.1:PORT/path`.
    public func url(_ path: String) -> URL {
        URL(string: "http://127.0.0.1:\(port)\(path)")!
    }

    /// Stops the server and removes its folder.
    public func stop() {
        peer.stop()
        try? FileManager.default.removeItem(at: folder)
    }

    deinit {
        stop()
    }
}
#endif
