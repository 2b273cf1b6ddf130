import AsyncHTTPClient
import Foundation
import NIOHTTP1
import XCTest

@testable import HTTPCoreAsyncHTTPClient

/// The AHC requests the transport keeps by URL and method, so that AHC takes a URL apart once.
final class RequestTemplatesTests: XCTestCase {
    private let users = URL(string: "http://127.0.0.1:8080/users/42?fields=name")!

    func testTheSameURLAndMethodAreKeptOnceAndEachCopyCarriesOnlyItsOwnHeadersAndBody() throws {
        let templates = RequestTemplates()
        let first = try templates.request(url: users, method: .GET, headers: ["Authorization": "Bearer one"], body: .bytes(Data("a".utf8)))
        let second = try templates.request(url: users, method: .GET, headers: ["X-Tag": "two"], body: nil)
        let third = try templates.request(url: users, method: .GET, headers: [:], body: nil)

        XCTAssertEqual(templates.keptURLs, [users], "one entry for the URL and method, made by the first call")
        XCTAssertEqual(first.headers, ["Authorization": "Bearer one"])
        XCTAssertEqual(first.body?.contentLength, 1)
        XCTAssertEqual(second.headers, ["X-Tag": "two"], "nothing of the first call's headers")
        XCTAssertNil(second.body, "nor of its body")
        XCTAssertEqual(third.headers, [:])
        for request in [first, second, third] {
            XCTAssertEqual(request.url, users)
            XCTAssertEqual(request.method, .GET)
            XCTAssertEqual(request.host, "127.0.0.1")
            XCTAssertEqual(request.port, 8080)
            XCTAssertEqual(request.scheme, "http")
        }
    }

    func testAnotherMethodOrAnotherURLIsAnotherEntry() throws {
        let templates = RequestTemplates()
        let other = URL(string: "https://example.com/users/42?fields=name")!
        let get = try templates.request(url: users, method: .GET, headers: [:], body: nil)
        let post = try templates.request(url: users, method: .POST, headers: [:], body: .bytes(Data("{}".utf8)))
        let elsewhere = try templates.request(url: other, method: .GET, headers: [:], body: nil)

        XCTAssertEqual(templates.keptURLs, [users, users, other])
        XCTAssertEqual(get.method, .GET)
        XCTAssertEqual(post.method, .POST)
        XCTAssertEqual(elsewhere.url, other)
        XCTAssertEqual(elsewhere.host, "example.com")
        XCTAssertEqual(elsewhere.port, 443)
        XCTAssertTrue(elsewhere.useTLS)
    }

    func testPastItsCapacityTheOldestEntryGivesWay() throws {
        let templates = RequestTemplates()
        let capacity = RequestTemplates.capacity
        let urls = (0...capacity).map { URL(string: "http://127.0.0.1:8080/\($0)")! }
        for url in urls {
            _ = try templates.request(url: url, method: .GET, headers: [:], body: nil)
        }
        XCTAssertEqual(templates.keptURLs, [urls[capacity]] + urls[1..<capacity], "the one past the capacity took the first one's place")

        _ = try templates.request(url: urls[0], method: .GET, headers: [:], body: nil)
        XCTAssertEqual(templates.keptURLs, [urls[capacity], urls[0]] + urls[2..<capacity], "the first one again took the second one's place")
    }

    func testAURLAHCCannotSendToThrowsAsAHCDoesAndIsNotKept() throws {
        let templates = RequestTemplates()
        let ftp = URL(string: "ftp://127.0.0.1/file")!
        XCTAssertThrowsError(try templates.request(url: ftp, method: .GET, headers: [:], body: nil)) { error in
            XCTAssertEqual(error as? HTTPClientError, .unsupportedScheme("ftp"))
        }
        XCTAssertEqual(templates.keptURLs, [])
    }
}
