import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix

/// The server child: a minimal SwiftNIO HTTP/1.1 keep-alive server on 127.0.0.1 answering
/// `GET /64` and `GET /65536` with a fixed body of that many bytes (``FixedResponses``).
///
/// It is kept cheap so the client is what the benchmark measures: one event loop thread (the
/// client process has the other core), bodies built once at start and written without a copy.
/// It prints `port N` on one line once it listens, and serves until its standard input
/// closes, which happens when the parent stops it or dies.
enum BenchmarkServer {
    /// The argument that makes this executable the server child.
    static let flag = "--serve"

    /// Serves until standard input closes; returns the exit status.
    static func serveUntilInputCloses() async -> Int32 {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let responses = FixedResponses(sizes: ResponseSize.all)
        do {
            let channel = try await ServerBootstrap(group: group)
                .serverChannelOption(.backlog, value: 512)
                .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
                .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
                .childChannelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.configureHTTPServerPipeline(withErrorHandling: true)
                        try channel.pipeline.syncOperations.addHandler(FixedBodyHandler(responses: responses))
                    }
                }
                .bind(host: "127.0.0.1", port: 0)
                .get()
            guard let port = channel.localAddress?.port else { throw ServerBenchError("the server has no port") }
            FileHandle.standardOutput.write(Data("port \(port)\n".utf8))
            // Blocks this thread only; the event loop serves on its own.
            _ = FileHandle.standardInput.readDataToEndOfFile()
            try await channel.close()
            try await group.shutdownGracefully()
            return 0
        } catch {
            FileHandle.standardError.write(Data("server-bench server: \(error)\n".utf8))
            try? await group.shutdownGracefully()
            return 1
        }
    }
}
