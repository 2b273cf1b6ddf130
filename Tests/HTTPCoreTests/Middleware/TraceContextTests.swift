import HTTPCore
import XCTest

/// `TraceContext` against the rules of W3C Trace Context, section 3.2 (`traceparent`).
final class TraceContextTests: XCTestCase {
    private let valid = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"

    func testAValidTraceparentIsReadIntoItsParts() throws {
        let context = try XCTUnwrap(TraceContext(traceparent: valid, tracestate: "congo=t61rcWkgMzE"))
        XCTAssertEqual(context.traceID, "4bf92f3577b34da6a3ce929d0e0e4736")
        XCTAssertEqual(context.spanID, "00f067aa0ba902b7")
        XCTAssertEqual(context.flags, 1)
        XCTAssertTrue(context.isSampled)
        XCTAssertEqual(context.traceState, "congo=t61rcWkgMzE")
        XCTAssertEqual(context.traceparent, valid)
        let flagged = try XCTUnwrap(TraceContext(traceID: context.traceID, spanID: context.spanID, flags: 0xa3))
        XCTAssertEqual(flagged.traceparent, "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-a3")
    }

    func testTraceparentIsVersion00TheIDsAndTheFlagsAsTwoLowercaseHexDigits() throws {
        let traceID = "0af7651916cd43dd8448eb211c80319c"
        let spanID = "b7ad6b7169203331"
        for (flags, digits) in [(UInt8(0x00), "00"), (0x01, "01"), (0x0f, "0f"), (0x10, "10"), (0xa3, "a3"), (0xff, "ff")] {
            let context = try XCTUnwrap(TraceContext(traceID: traceID, spanID: spanID, flags: flags))
            XCTAssertEqual(context.traceparent, "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-" + digits)
        }
        let trace = TraceContext.newTrace()
        XCTAssertEqual(trace.traceparent, "00-\(trace.traceID)-\(trace.spanID)-01")
        let span = trace.newSpan()
        XCTAssertEqual(span.traceparent, "00-\(trace.traceID)-\(span.spanID)-01")
    }

    func testValuesThatBreakARuleAreRefused() {
        let refused = [
            "": "empty",
            "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01": "uppercase trace id",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00F067AA0BA902B7-01": "uppercase span id",
            "00-00000000000000000000000000000000-00f067aa0ba902b7-01": "all-zero trace id",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01": "all-zero span id",
            "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01": "version ff",
            "00-4bf92f3577b34da6a3ce929d0e0e473-00f067aa0ba902b7-01": "trace id of 31 digits",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b-01": "span id of 15 digits",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-1": "one flag digit",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-0g": "flags not hex",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-extra": "version 00 with more fields",
            "00_4bf92f3577b34da6a3ce929d0e0e4736_00f067aa0ba902b7_01": "wrong separators",
            "0g-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01": "version not hex",
            "01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01x": "a later version not followed by a dash",
        ]
        for (value, reason) in refused {
            XCTAssertNil(TraceContext(traceparent: value), reason)
        }
        XCTAssertNil(TraceContext(traceID: "abc", spanID: "00f067aa0ba902b7"))
    }

    func testLaterVersionsAreReadByTheirFirstFields() {
        XCTAssertNotNil(TraceContext(traceparent: "01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-what-comes-next"))
        XCTAssertNotNil(TraceContext(traceparent: "  " + valid + " "), "optional whitespace around a header value")
    }

    func testWhitespaceAroundTheValueIsTrimmedAsFoundationsWhitespacesSetSays() throws {
        for padded in ["\t" + valid + "  ", "\u{00A0}" + valid, valid + "\u{3000}", " \u{2009}" + valid + "\u{00A0}\t"] {
            let context = try XCTUnwrap(TraceContext(traceparent: padded), padded.debugDescription)
            XCTAssertEqual(context.traceparent, valid)
        }
        for padded in ["\n" + valid, valid + "\r\n"] {
            XCTAssertNil(TraceContext(traceparent: padded), "not in .whitespaces: \(padded.debugDescription)")
        }
    }

    func testNewTracesAndSpansHaveValidRandomIDs() throws {
        let traces = (0..<200).map { _ in TraceContext.newTrace() }
        for trace in traces {
            XCTAssertTrue(Self.isValidTraceparent(trace.traceparent), trace.traceparent)
            XCTAssertEqual(TraceContext(traceparent: trace.traceparent), trace)
        }
        XCTAssertEqual(Set(traces.map(\.traceID)).count, 200)
        XCTAssertEqual(TraceContext.newTrace(sampled: false).traceparent.suffix(3), "-00")

        let parent = try XCTUnwrap(TraceContext(traceparent: valid, tracestate: "a=1"))
        let child = parent.newSpan()
        XCTAssertEqual(child.traceID, parent.traceID)
        XCTAssertNotEqual(child.spanID, parent.spanID)
        XCTAssertEqual(child.flags, parent.flags)
        XCTAssertEqual(child.traceState, "a=1")

        let loud = try XCTUnwrap(TraceContext(traceID: parent.traceID, spanID: parent.spanID, flags: 0xff))
        XCTAssertEqual(loud.newSpan().flags, 0x03, "flags version 00 does not define are not passed on")
    }

    /// The W3C format of version 00, checked independently of `TraceContext`'s parser.
    static func isValidTraceparent(_ value: String) -> Bool {
        let parts = value.split(separator: "-", omittingEmptySubsequences: false)
        let lowerHex = Set("0123456789abcdef")
        guard parts.count == 4, parts.map(\.count) == [2, 32, 16, 2], parts.allSatisfy({ $0.allSatisfy(lowerHex.contains) })
        else { return false }
        return parts[0] == "00" && parts[1].contains { $0 != "0" } && parts[2].contains { $0 != "0" }
    }
}
