import Foundation
import HTTPCore
import HTTPCoreObservation
import HTTPCoreTesting
import LokiObserver
import XCTest
import HTTPCoreTestPeers

/// Redaction configured in one place: an exchange's lines show what its client's policy
/// exposes, and the logger's own redactor masks only its plain messages and their metadata.
final class LokiRedactionTests: XCTestCase {
    /// The lines each logger pushed, sorted, for one streamed POST of `request` under `policy`,
    /// answered with `frames` (server-sent events), each logger behind its own receiver and
    /// shipping message lines too.
    private func pushedLines(
        _ request: HTTPRequest, frames: [String], policy: HTTPCorePolicy, expectedLines: Int,
        loggers configurations: [(inout LokiConfiguration) -> Void]
    ) async throws -> [[String]] {
        let receivers = try configurations.map { _ in try LokiReceiver() }
        defer { receivers.forEach { $0.stop() } }
        let harnesses = zip(receivers, configurations).map { receiver, configure in
            LokiHarness(receiver: receiver) { configuration in
                configuration.maxMessageLinesPerExchange = 10
                configure(&configuration)
            }
        }
        let dispatcher = HTTPEventDispatcher()
        for harness in harnesses { dispatcher.subscribe(LokiObserver(logger: harness.logger)) }
        let transport = StreamingMockTransport(headers: ["Content-Type": "text/event-stream"])
        let client = HTTPTransportClient(transport: transport, dispatcher: dispatcher, policy: policy)
        async let read = client.send(request, body: nil) { _, body in try await body.collect(upTo: 1 << 20).count }
        let writer = try await transport.nextWriter()
        for frame in frames { try await writer.write(HTTPBody.ByteChunk(frame.utf8)) }
        writer.finish()
        _ = try await read
        await dispatcher.flush()
        var lines: [[String]] = []
        for (harness, receiver) in zip(harnesses, receivers) {
            await harness.logger.flush()
            let received = try await receiver.waitForEntries(expectedLines)
            XCTAssertEqual(received.rejections, [])
            lines.append(received.lines.sorted())
        }
        return lines
    }

    func testAStricterLoggerRedactorLeavesAnExchangesLinesAsThePolicyExposedIt() async throws {
        let request = HTTPRequest(
            method: .post, url: URL(string: "https://api.example.com/v1/chat?page=2&token=abc")!, headers: ["X-Request-ID": "corr-7"],
            body: Data(#"{"prompt":"hi"}"#.utf8), metadata: ["customer": "Ada"]
        )
        let frames = ["event: delta\nid: 3f9a1c0e8b7d6a5f4e3d\ndata: {\"t\":\"Hel\",\"password\":\"pw\"}\n\n"]
        let pushed = try await pushedLines(
            request, frames: frames, policy: .debug, expectedLines: 2,
            loggers: [{ _ in }, { $0.redactor = Redactor(level: .strict, sensitiveHeaderNames: ["X-Request-ID"], sensitiveBodyKeys: ["t"]) }]
        )
        let (standard, strict) = (pushed[0], pushed[1])
        XCTAssertEqual(strict, standard, "the same lines, whatever the logger's redactor")
        // What `.standard`, the policy's level, shows, and the strict logger would have masked.
        let message = try XCTUnwrap(strict.first { $0.contains(" index=0 ") })
        XCTAssertTrue(message.hasPrefix(#"method=POST url="https://api.example.com/v1/chat?page=2&token=[REDACTED]" status=200 "#), message)
        XCTAssertTrue(message.contains(" correlation_id=corr-7 "), message)
        XCTAssertTrue(message.contains(" event=delta event_id=3f9a1c0e8b7d6a5f4e3d "), message)
        XCTAssertTrue(message.contains(#" data="{\"t\":\"Hel\",\"password\":\"[REDACTED]\"}" customer=Ada"#), message)
        let exchange = try XCTUnwrap(strict.first { $0.contains(" outcome=succeeded ") })
        XCTAssertTrue(exchange.contains(" correlation_id=corr-7 "), exchange)
        XCTAssertTrue(exchange.hasSuffix(" customer=Ada"), exchange)
    }

    func testAStricterLoggerRedactorMasksAPlainMessageAndItsMetadata() async throws {
        let receiver = try LokiReceiver()
        defer { receiver.stop() }
        let standard = LokiHarness(receiver: receiver) { $0.app = "standard" }
        let strict = LokiHarness(receiver: receiver) { configuration in
            configuration.app = "strict"
            configuration.redactor = Redactor(level: .strict)
        }
        let strictLogger = strict.logger
        strictLogger.info("order 3f9a1c0e8b7d6a5f4e3d placed", metadata: ["customer": "Ada"])
        standard.logger.info("order 3f9a1c0e8b7d6a5f4e3d placed", metadata: ["customer": "Ada"])
        await standard.logger.flush()
        await strictLogger.flush()
        let received = try await receiver.waitForEntries(2)
        XCTAssertEqual(received.lines.sorted(), [
            #"msg="order 3f9a1c0e8b7d6a5f4e3d placed" customer=Ada"#,
            #"msg="order [REDACTED] placed" customer=[REDACTED]"#,
        ])
    }

    func testASecretThePolicyNamesIsMaskedInTheLinesOfAnExchange() async throws {
        let policy = HTTPCorePolicy(
            redactor: Redactor(sensitiveHeaderNames: ["X-Tenant"], sensitiveQueryNames: ["voucher"], sensitiveBodyKeys: ["seat"]),
            bodyCapture: .captured(maxBytes: 64 * 1024), reportedCorrelationHeaderNames: ["X-Tenant"]
        )
        let request = HTTPRequest(
            method: .post, url: URL(string: "https://api.example.com/v1/seats?voucher=V-BANJO&row=12")!,
            headers: ["X-Tenant": "tenant-kiwi"], metadata: ["seat": "window-quokka"]
        )
        let frames = ["data: {\"seat\":\"window-quokka\",\"price\":40}\n\n"]
        let lines = try await pushedLines(request, frames: frames, policy: policy, expectedLines: 2, loggers: [{ _ in }])[0]
        let message = try XCTUnwrap(lines.first { $0.contains(" index=0 ") })
        XCTAssertTrue(message.hasPrefix(#"method=POST url="https://api.example.com/v1/seats?voucher=[REDACTED]&row=12" status=200 "#), message)
        XCTAssertTrue(message.contains(" correlation_id=[REDACTED] "), message)
        XCTAssertTrue(message.hasSuffix(#" data="{\"seat\":\"[REDACTED]\",\"price\":40}" seat=[REDACTED]"#), message)
        let exchange = try XCTUnwrap(lines.first { $0.contains(" outcome=succeeded ") })
        XCTAssertTrue(exchange.contains(#" answer="{\"seat\":\"[REDACTED]\",\"price\":40}""#), exchange)
        for line in lines {
            for secret in ["V-BANJO", "tenant-kiwi", "window-quokka"] {
                XCTAssertFalse(line.contains(secret), "\(secret) left the process: \(line)")
            }
        }
    }
}
