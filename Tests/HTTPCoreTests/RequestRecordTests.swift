@testable import HTTPCore
@testable import HTTPCoreObservation
import Foundation
import XCTest

/// A request record reads its URL's host once per exchange, and reads from an earlier record of
/// its exchange the redaction of every part the two have equal, keeping it only when that keeps
/// no other body alive.
final class RequestRecordTests: XCTestCase {
    private let request = HTTPRequest(method: .post, url: URL(string: "https://api.example.com/v1/items")!, body: Data(count: 1 << 20))

    func testALaterRecordWhoseBodyAMiddlewareReEncodedDoesNotKeepTheEarlierOneAlive() {
        var earlier: RequestRecord? = RequestRecord(request: request, policy: .debug, correlation: nil)
        weak let weakEarlier = earlier
        XCTAssertEqual(earlier?.host, "api.example.com")
        var compressed = request
        compressed.body = Data(count: 1 << 10)
        let later = RequestRecord(request: compressed, policy: .debug, correlation: nil, earlier: earlier)
        earlier = nil
        XCTAssertNil(weakEarlier, "the earlier record, and its body, are freed")
        XCTAssertEqual(later.host, "api.example.com")
    }

    func testALaterRecordOfTheSameBodyKeepsTheEarlierOneAliveAndReadsItsFields() {
        var earlier: RequestRecord? = RequestRecord(request: request, policy: .debug, correlation: nil)
        weak let weakEarlier = earlier
        let later = RequestRecord(request: request, policy: .debug, correlation: nil, earlier: earlier)
        earlier = nil
        XCTAssertNotNil(weakEarlier, "kept: it holds no body that the later record does not")
        XCTAssertEqual(later.exposedURL, "https://api.example.com/v1/items")
        XCTAssertEqual(weakEarlier?.exposedFields, ["url"], "redacted once, in the earlier record")
    }

    func testALaterRecordShowsItsHeadersAsSentWhenTheyAreEqualToTheEarliersOnlyAsSwiftStrings() {
        let url = URL(string: "https://api.example.com/v1/items")!
        let earlier = RequestRecord(request: HTTPRequest(url: url, headers: ["X-Unit": "K"]), policy: .debug, correlation: nil)
        XCTAssertEqual(earlier.exposedHeaders["X-Unit"], "K")
        for headers: HTTPHeaders in [["X-Unit": "\u{212A}"], ["X-Unit": "\u{212A}", "traceparent": "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"]] {
            XCTAssertEqual(headers["X-Unit"], "K", "equal as Swift strings")
            let later = RequestRecord(request: HTTPRequest(url: url, headers: headers), policy: .debug, correlation: nil, earlier: earlier)

            XCTAssertEqual(later.exposedHeaders["X-Unit"]?.unicodeScalars.map(\.value), [0x212A], "the Kelvin sign, as sent")
        }
    }

    func testALaterRecordShowsItsMetadataAsGivenWhenItIsEqualToTheEarliersOnlyAsSwiftStrings() {
        var first = HTTPRequest(url: URL(string: "https://api.example.com/v1/items")!)
        first.metadata = ["unit": "K", "K": "key"]
        let earlier = RequestRecord(request: first, policy: .debug, correlation: nil)
        XCTAssertEqual(earlier.exposedMetadata, ["unit": "K", "K": "key"])
        for metadata in [["unit": "\u{212A}", "K": "key"], ["unit": "K", "\u{212A}": "key"]] {
            var later = first
            later.metadata = metadata
            XCTAssertEqual(later.metadata, first.metadata, "equal as Swift strings")
            let record = RequestRecord(request: later, policy: .debug, correlation: nil, earlier: earlier)

            let shown = record.exposedMetadata.map { Array($0.key.unicodeScalars.map(\.value)) + [0] + $0.value.unicodeScalars.map(\.value) }
            let given = metadata.map { Array($0.key.unicodeScalars.map(\.value)) + [0] + $0.value.unicodeScalars.map(\.value) }
            XCTAssertEqual(Set(shown), Set(given), "as given, the Kelvin sign included")
        }
    }

    func testWhatWasExposedIsToldWithoutComparingThePartsForGoodAndAFieldReadComparesThem() {
        let earlier = RequestRecord(request: request, policy: .debug, correlation: nil)
        XCTAssertEqual(earlier.exposedURL, "https://api.example.com/v1/items")
        var traced = request
        traced.headers.add(name: "traceparent", value: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
        let later = RequestRecord(request: traced, policy: .debug, correlation: nil, earlier: earlier)
        XCTAssertFalse(later.hasComparedParts, "making the record compares nothing")

        XCTAssertEqual(later.exposedFields, ["url"], "the URL, shared, was redacted by the earlier record")
        XCTAssertFalse(later.hasComparedParts, "telling it keeps no comparison")

        XCTAssertEqual(later.exposedHeaders["traceparent"], "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
        XCTAssertTrue(later.hasComparedParts, "the first field read compares the parts, once")
        XCTAssertEqual(later.exposedFields, ["url", "headers"])
    }

    func testRecordsOfTheSameURLShareOneHost() {
        let first = RequestRecord(request: request, policy: .debug, correlation: nil)
        let second = RequestRecord(request: request, policy: .debug, correlation: nil, earlier: first)
        let third = RequestRecord(request: request, policy: .debug, correlation: nil, earlier: second)
        XCTAssertEqual([first.host, second.host, third.host], ["api.example.com", "api.example.com", "api.example.com"])
        var moved = request
        moved.url = URL(string: "https://other.example.com/v1/items")!
        XCTAssertEqual(RequestRecord(request: moved, policy: .debug, correlation: nil, earlier: third).host, "other.example.com")
    }

    /// The caller's request as a middleware meets it: a query secret, a JSON body, metadata.
    private let callers = HTTPRequest(
        method: .post, url: URL(string: "https://api.example.com/v1/items?token=t0ken")!,
        headers: ["Content-Type": "application/json", "Authorization": "Bearer s3cret"], body: Data(#"{"password":"hunter2","n":1}"#.utf8),
        metadata: ["route": "/v1/items"]
    )
    /// The header a trace context middleware adds.
    private let traceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"

    func testARecordWhoseHeadersAloneChangedSharesTheRedactedURLBodyAndMetadata() {
        let created = RequestRecord(request: callers, policy: .debug, correlation: nil)
        XCTAssertEqual(created.exposedURL, "https://api.example.com/v1/items?token=[REDACTED]")
        XCTAssertEqual(created.exposedBody.body.map { String(decoding: $0, as: UTF8.self) }, #"{"password":"[REDACTED]","n":1}"#)
        XCTAssertEqual(created.exposedMetadata, ["route": "/v1/items"])
        XCTAssertEqual(created.exposedHeaders["Authorization"], Redactor.mask)
        var traced = callers
        traced.headers.add(name: "traceparent", value: traceparent)

        let attempt = RequestRecord(request: traced, policy: .debug, correlation: nil, earlier: created)
        XCTAssertEqual(attempt.exposedFields, ["url", "body", "metadata"], "redacted once, for the caller's record; the headers are not")
        XCTAssertEqual(attempt.exposedURL, created.exposedURL)
        XCTAssertEqual(attempt.exposedBody.body, created.exposedBody.body)
        XCTAssertEqual(attempt.exposedMetadata, created.exposedMetadata)
        XCTAssertEqual(attempt.exposedHeaders, [
            "Content-Type": "application/json", "Authorization": Redactor.mask,
            "traceparent": traceparent,
        ])
        XCTAssertEqual(attempt.host, "api.example.com")
    }

    func testWhatALaterRecordRedactsFirstTheEarlierOneReadsWithoutRedactingIt() {
        let created = RequestRecord(request: callers, policy: .debug, correlation: nil)
        var traced = callers
        traced.headers.add(name: "traceparent", value: traceparent)
        let attempt = RequestRecord(request: traced, policy: .debug, correlation: nil, earlier: created)
        XCTAssertEqual(created.exposedFields, [])

        XCTAssertEqual(attempt.exposedURL, "https://api.example.com/v1/items?token=[REDACTED]")
        XCTAssertEqual(created.exposedFields, ["url"], "the URL the attempt redacted")
    }

    func testARecordWithHeadersAddedAfterTheEarlierOnesSharesTheRedactionOfThoseAndRedactsOnlyTheAdded() {
        let created = RequestRecord(request: callers, policy: .debug, correlation: nil)
        var traced = callers
        traced.headers.add(name: "traceparent", value: traceparent)
        traced.headers.add(name: "X-Api-Key", value: "k3y")
        let attempt = RequestRecord(request: traced, policy: .debug, correlation: nil, earlier: created)

        XCTAssertEqual(attempt.exposedHeaders, [
            "Content-Type": "application/json", "Authorization": Redactor.mask,
            "traceparent": traceparent, "X-Api-Key": Redactor.mask,
        ])
        XCTAssertEqual(attempt.exposedHeaders, Redactor.standard.redactedHeaders(traced.headers), "as if redacted whole")
        XCTAssertEqual(created.exposedFields, ["headers"], "the caller's headers, redacted once for both records")
        XCTAssertEqual(created.exposedHeaders, ["Content-Type": "application/json", "Authorization": Redactor.mask])
    }

    func testARecordWhoseMiddlewareReplacedAHeaderRedactsItsHeadersAlone() {
        let created = RequestRecord(request: callers, policy: .debug, correlation: nil)
        var reauthorized = callers
        reauthorized.headers["Authorization"] = "Bearer n3w"
        reauthorized.headers.add(name: "traceparent", value: traceparent)
        let attempt = RequestRecord(request: reauthorized, policy: .debug, correlation: nil, earlier: created)

        XCTAssertEqual(attempt.exposedHeaders, Redactor.standard.redactedHeaders(reauthorized.headers))
        XCTAssertEqual(created.exposedFields, [], "its headers are not a continuation of the caller's")
    }

    func testARecordOfAnotherURLAndABodyOfAnotherLengthSharesNothingAndShowsItsOwn() {
        let created = RequestRecord(request: callers, policy: .debug, correlation: nil)
        _ = created.exposed
        XCTAssertEqual(created.host, "api.example.com")
        var moved = callers
        moved.url = URL(string: "https://eu.example.com/v1/items?key=k3y")!
        moved.body = Data(#"{"token":"abc","n":2}"#.utf8)

        let attempt = RequestRecord(request: moved, policy: .debug, correlation: nil, earlier: created)
        XCTAssertEqual(attempt.exposedFields, [], "a body re-encoded by a middleware: nothing is read from the caller's record")
        XCTAssertEqual(attempt.exposedURL, "https://eu.example.com/v1/items?key=[REDACTED]")
        XCTAssertEqual(attempt.exposedBody.body.map { String(decoding: $0, as: UTF8.self) }, #"{"token":"[REDACTED]","n":2}"#)
        XCTAssertEqual(attempt.host, "eu.example.com")
        XCTAssertEqual(created.exposedURL, "https://api.example.com/v1/items?token=[REDACTED]", "the earlier record keeps its own")
    }

    func testABodyIsSharedOnlyWithTheSameContentTypeAndStreamedByteCount() {
        let created = RequestRecord(request: callers, policy: .debug, correlation: nil)
        _ = created.exposed
        var retyped = callers
        retyped.headers["Content-Type"] = "text/plain"
        XCTAssertEqual(RequestRecord(request: retyped, policy: .debug, correlation: nil, earlier: created).exposedFields, ["url", "metadata"])
        let streamed = RequestRecord(request: callers, policy: .debug, correlation: nil, isStreamed: true, streamedBodyByteCount: 1 << 20, earlier: created)
        XCTAssertEqual(streamed.exposedFields, ["url", "headers", "metadata"])
        XCTAssertEqual(streamed.exposedBody.isTruncated, true, "its own body: the first bytes of a longer one")
    }
}
