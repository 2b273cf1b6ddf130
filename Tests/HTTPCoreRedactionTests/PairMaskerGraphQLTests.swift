import Foundation
import HTTPCoreRedaction
import XCTest

/// GraphQL in a GET query string or a form body: literals and variables masked like the JSON form.
final class PairMaskerGraphQLTests: XCTestCase {
    func testAGetOperationHasItsLiteralsAndVariablesMasked() {
        let url = "https://api.example.com/graphql?query=query%20Q(%24id%3A%20ID!)%20%7B%20user(id%3A%20%2242%22)%20%7B%20name%20%7D%20%7D"
            + "&variables=%7B%22id%22%3A%22S3CR3T%22%2C%22n%22%3A5%7D&operationName=Q"
        XCTAssertEqual(
            Redactor.standard.redactedURL(string: url),
            #"https://api.example.com/graphql?query=query%20Q(%24id%3A%20ID!)%20%7B%20user(id%3A%20%2242%22)%20%7B%20name%20%7D%20%7D&variables={"id":"[REDACTED]","n":"[REDACTED]"}&operationName=Q"#
        )
    }

    func testWhatIsNotAnOperationOrHasNoLiteralsIsKeptAsSent() {
        let kept = [
            "https://api.example.com/graphql?query=%7Bme%7Bname%7D%7D",
            "https://shop.example.com/search?query=red%20shoes&page=2",
            "https://shop.example.com/search?query=query",
            "https://api.example.com/x?variables=none",
        ]
        for url in kept {
            XCTAssertEqual(Redactor.standard.redactedURL(string: url), url)
        }
    }

    func testAFormBodyAndTheAllowlist() {
        let form = #"query=mutation+{+login(password:+"S3CR3T")+}&variables={"p":"S3CR3T","first":10}"#
        let masked = Redactor(level: .standard, allowedBodyKeys: ["first"])
            .redactedBody(Data(form.utf8), contentType: "application/x-www-form-urlencoded")
        XCTAssertEqual(
            String(decoding: masked, as: UTF8.self),
            #"query=mutation%20{%20login(password:%20***)%20}&variables={"p":"[REDACTED]","first":10}"#
        )
    }

    func testStrictMasksTheWholeValues() {
        let url = "https://api.example.com/graphql?query=%7Bme%7D&variables=%7B%7D"
        XCTAssertEqual(Redactor.strict.redactedURL(string: url), "https://api.example.com/graphql?query=[REDACTED]&variables=[REDACTED]")
    }
}
