@testable import CoreMetrics
import Foundation
import HTTPCore
import HTTPCoreObservation
import HTTPCoreMetrics
import HTTPCoreTesting
import HTTPCoreTracing
import HTTPCoreWebSocket
import InMemoryTracing
import MetricsTestKit
import NIOCore
import Tracing
import WSClient
import XCTest

/// A real connection through the adapter, seen by ``WebSocketSpanObserver`` and
/// ``MetricsObserver``.
final class WebSocketSpanAndMetricsTests: XCTestCase {
    private var peer: WebSocketPeer!

    override func setUpWithError() throws {
        peer = try WebSocketPeer()
    }

    override func tearDown() {
        peer?.stop()
    }

    /// Sends "hello" and "close": the server echoes the first and closes with 4000.
    private func connect(observers: [any HTTPObserver]) async throws -> RecordingObserver {
        let (client, recorder) = observedClient(observers: observers)
        try await client.webSocket(HTTPRequest(url: peer.url())) { inbound, outbound, _ in
            var messages = inbound.messages(maxSize: 1 << 20).makeAsyncIterator()
            try await outbound.write(.text("hello"))
            let message1 = try await messages.next()
            XCTAssertEqual(message1, .text("hello"))
            try await outbound.write(.text("close"))
            let message2 = try await messages.next()
            XCTAssertNil(message2)
        }
        _ = try await recorder.waitForTerminalEvents(count: 1)
        return recorder
    }

    func testAConnectionIsOneSpanWithItsMessageCountsBytesAndClose() async throws {
        let tracer = InMemoryTracer()
        _ = try await connect(observers: [WebSocketSpanObserver(tracer: tracer)])

        XCTAssertEqual(tracer.finishedSpans.count, 1)
        let span = try XCTUnwrap(tracer.finishedSpans.first)
        XCTAssertEqual(span.operationName, "WebSocket 127.0.0.1")
        XCTAssertEqual(span.kind, .client)
        XCTAssertEqual(span.attributes["websocket.messages.sent"]?.toSpanAttribute(), 2)
        XCTAssertEqual(span.attributes["websocket.messages.received"]?.toSpanAttribute(), 2)
        XCTAssertEqual(span.attributes["websocket.bytes.sent"]?.toSpanAttribute(), 10)
        XCTAssertEqual(span.attributes["websocket.bytes.received"]?.toSpanAttribute(), 20)
        XCTAssertEqual(span.attributes["websocket.close.code"]?.toSpanAttribute(), 4000)
        XCTAssertEqual(span.attributes["websocket.close.initiator"]?.toSpanAttribute(), "server")
        XCTAssertEqual(span.attributes["http.response.status_code"]?.toSpanAttribute(), 101)
        XCTAssertNil(span.status)
    }

    func testAConnectionRecordsItsMessagesAndBytesEachWayAndItsDuration() async throws {
        let metrics = TestMetrics()
        MetricsSystem.bootstrapInternal(metrics)
        _ = try await connect(observers: [MetricsObserver()])

        let server = [("server.address", "127.0.0.1")]
        XCTAssertEqual(try metrics.expectCounter(MetricsObserver.webSocketMessagesLabel, server + [("websocket.direction", "sent")]).totalValue, 2)
        XCTAssertEqual(
            try metrics.expectCounter(MetricsObserver.webSocketMessagesLabel, server + [("websocket.direction", "received")]).totalValue, 2
        )
        XCTAssertEqual(try metrics.expectCounter(MetricsObserver.webSocketBytesLabel, server + [("websocket.direction", "sent")]).totalValue, 10)
        XCTAssertEqual(try metrics.expectCounter(MetricsObserver.webSocketBytesLabel, server + [("websocket.direction", "received")]).totalValue, 20)
        let duration = try metrics.expectTimer(MetricsObserver.webSocketConnectionDurationLabel, server + [("error.type", ""), ("unit", "s")])
        XCTAssertEqual(duration.values.count, 1)
        XCTAssertGreaterThan(duration.values[0], 0)
    }
}
