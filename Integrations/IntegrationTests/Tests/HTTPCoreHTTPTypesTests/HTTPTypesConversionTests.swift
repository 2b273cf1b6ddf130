import Foundation
import HTTPCore
import HTTPCoreHTTPTypes
import HTTPTypes
import XCTest

/// HTTPCore's request, response and headers to swift-http-types' and back, without losing
/// repeated fields, the case names were written in, or extension methods.
final class HTTPTypesConversionTests: XCTestCase {
    private let url = URL(string: "https://api.example.com:8443/v1/items?page=2&sort=name")!

    private var coreHeaders: HTTPCore.HTTPHeaders {
        var headers = HTTPCore.HTTPHeaders()
        headers.add(name: "Accept", value: "application/json")
        headers.add(name: "X-Tag", value: "first")
        headers.add(name: "x-tag", value: "second")
        headers.add(name: "Cache-Control", value: "no-cache")
        return headers
    }

    func testAnHTTPCoreRequestBecomesAnHTTPTypesRequestAndComesBackTheSame() throws {
        let request = HTTPCore.HTTPRequest(method: HTTPMethod("PURGE")!, url: url, headers: coreHeaders)

        let converted = try HTTPTypes.HTTPRequest(request)
        XCTAssertEqual(converted.method.rawValue, "PURGE")
        XCTAssertEqual(converted.scheme, "https")
        XCTAssertEqual(converted.authority, "api.example.com:8443")
        XCTAssertEqual(converted.path, "/v1/items?page=2&sort=name")
        XCTAssertEqual(converted.headerFields.map { "\($0.name.rawName): \($0.value)" }, [
            "Accept: application/json", "X-Tag: first", "x-tag: second", "Cache-Control: no-cache",
        ])
        XCTAssertEqual(converted.headerFields[values: .init("x-tag")!], ["first", "second"])

        let back = try HTTPCore.HTTPRequest(converted, body: Data("{}".utf8), timeout: 5)
        XCTAssertEqual(back.method.rawValue, "PURGE")
        XCTAssertEqual(back.url, url)
        XCTAssertEqual(back.headers, coreHeaders)
        XCTAssertEqual(back.body, Data("{}".utf8))
        XCTAssertEqual(back.timeout, 5)
    }

    func testAnHTTPTypesRequestBecomesAnHTTPCoreRequest() throws {
        var fields = HTTPFields()
        fields.append(HTTPField(name: .accept, value: "text/plain"))
        fields.append(HTTPField(name: .cookie, value: "a=1"))
        fields.append(HTTPField(name: .cookie, value: "b=2"))
        let request = HTTPTypes.HTTPRequest(method: .post, scheme: "http", authority: "localhost:8080", path: "/upload", headerFields: fields)

        let converted = try HTTPCore.HTTPRequest(request)
        XCTAssertEqual(converted.method, .post)
        XCTAssertEqual(converted.url.absoluteString, "http://localhost:8080/upload")
        XCTAssertEqual(converted.headers.fields.map { "\($0.name): \($0.value)" }, ["Accept: text/plain", "Cookie: a=1", "Cookie: b=2"])
        XCTAssertNil(converted.body)
        XCTAssertNil(converted.timeout)
    }

    func testResponsesConvertBothWays() throws {
        var headers = HTTPCore.HTTPHeaders()
        headers.add(name: "Set-Cookie", value: "a=1; Path=/")
        headers.add(name: "Set-Cookie", value: "b=2; Path=/")
        let id = HTTPCore.HTTPRequest.ID(rawValue: 7)
        let response = HTTPCore.HTTPResponse(requestID: id, statusCode: 299, headers: headers, body: Data("ok".utf8), url: url)

        let converted = try HTTPTypes.HTTPResponse(response.head)
        XCTAssertEqual(converted.status.code, 299)
        XCTAssertEqual(converted.headerFields[values: .setCookie], ["a=1; Path=/", "b=2; Path=/"])

        let back = HTTPCore.HTTPResponse(head: .init(converted, requestID: id, url: url), body: Data("ok".utf8))
        XCTAssertEqual(back, response)
    }

    func testWhatHTTPDoesNotAllowIsRefusedNotRewritten() {
        let cases: [(String, () throws -> Void, String)] = [
            ("a field name with a space", {
                _ = try HTTPFields(HTTPCore.HTTPHeaders([.init(name: "Bad Name", value: "x")]))
            }, "the field name \"Bad Name\" is not an HTTP token"),
            ("a value with CR LF", {
                _ = try HTTPFields(HTTPCore.HTTPHeaders([.init(name: "X-Injected", value: "a\r\nSet-Cookie: evil=1")]))
            }, "the value of the field \"X-Injected\" has a byte HTTP does not allow"),
            ("a status of two digits", {
                _ = try HTTPTypes.HTTPResponse(HTTPCore.HTTPResponse.Head(requestID: .init(rawValue: 1), statusCode: 42, url: self.url))
            }, "the status 42 is not between 100 and 999"),
            ("OPTIONS *", {
                _ = try HTTPCore.HTTPRequest(HTTPTypes.HTTPRequest(method: .options, scheme: nil, authority: nil, path: "*"))
            }, "the request has no absolute URL (scheme, authority and path)"),
        ]
        for (situation, convert, expected) in cases {
            XCTAssertThrowsError(try convert(), situation) { error in
                XCTAssertEqual((error as? HTTPTypesConversionError)?.description, expected, situation)
            }
        }
    }
}
