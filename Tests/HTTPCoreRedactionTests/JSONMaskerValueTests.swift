import Foundation
import HTTPCoreRedaction
import XCTest

/// What the JSON masker does beyond sensitive keys: secrets inside string values, GraphQL
/// variables, and keys that are secrets at `.strict`.
final class JSONMaskerValueTests: XCTestCase {
    private func masked(_ json: String, _ redactor: Redactor = .standard) -> String {
        String(decoding: redactor.redactedBody(Data(json.utf8), contentType: "application/json"), as: UTF8.self)
    }

    func testStringValuesGetTheTextRules() {
        let cases: [(String, String)] = [
            (#"{"next":"https://a.example/cb?token=S3CR3T&x=1"}"#, #"{"next":"https://a.example/cb?token=[REDACTED]&x=1"}"#),
            (#"{"next":"https:\/\/a.example\/cb?code=S3CR3T"}"#, #"{"next":"https://a.example/cb?code=[REDACTED]"}"#),
            (#"{"link":"see https://user:S3CR3T@h.example/x"}"#, #"{"link":"see https://h.example/x"}"#),
            (#"{"form":"grant_type=password&password=S3CR3T"}"#, #"{"form":"grant_type=password&password=[REDACTED]"}"#),
            (#"{"header":"Bearer S3CR3T"}"#, #"{"header":"Bearer [REDACTED]"}"#),
            (#"{"header":"basic S3CR3T"}"#, #"{"header":"basic [REDACTED]"}"#),
            (#"{"list":["/cb?access_token=S3CR3T",1]}"#, #"{"list":["/cb?access_token=[REDACTED]",1]}"#),
            (#"{"t":"eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2ln"}"#, #"{"t":"[REDACTED]"}"#),
            (#"{"log":"login by admin:hunter2@db.internal:5432"}"#, #"{"log":"login by admin:[REDACTED]@db.internal:5432"}"#),
        ]
        for (input, expected) in cases {
            XCTAssertEqual(masked(input), expected, input)
        }
    }

    func testStringsWithoutSecretsAreCopiedByteForByte() {
        let inputs = [
            #"{"a":"x\u0041=1","b":"https:\/\/a.example\/p","c":"basically fine","d":"a = b"}"#,
            #"{"e":"2 + 2 = 4","f":"\ud83d\ude00"}"#,
        ]
        for input in inputs {
            XCTAssertEqual(masked(input), input)
        }
    }

    func testGraphQLVariablesAreJudgedByTheArgumentsTheyArePassedTo() {
        // `p` goes to `password`: masked whatever its name; `n` goes to `first`: kept; `flags`
        // and `input` are passed nowhere: masked whole, keys kept.
        let input = #"{"query":"mutation($p: String!, $n: Int) { login(password: $p, tries: 3) { items(first: $n) } }","variables":{"p":"S3CR3T","n":5,"flags":[true,"x"],"input":{"email":"a@b.c"}},"operationName":"Login"}"#
        XCTAssertEqual(
            masked(input),
            #"{"query":"mutation($p: String!, $n: Int) { login(password: $p, tries: 3) { items(first: $n) } }","variables":{"p":"[REDACTED]","n":5,"flags":["[REDACTED]","[REDACTED]"],"input":{"email":"[REDACTED]"}},"operationName":"Login"}"#
        )
        let before = #"{"variables":{"n":5},"query":"query($n: Int) { a(first: $n) }"}"#
        XCTAssertEqual(masked(before), #"{"variables":{"n":"[REDACTED]"},"query":"query($n: Int) { a(first: $n) }"}"#, "variables before the query: all masked")
    }

    func testAllowedBodyKeysShowVariables() {
        let redactor = Redactor(level: .standard, allowedBodyKeys: ["first", "after"])
        let input = #"{"query":"query($first: Int) { a }","variables":{"first":10,"after":"c1","token":"S3CR3T","term":"x"}}"#
        XCTAssertEqual(
            masked(input, redactor),
            #"{"query":"query($first: Int) { a }","variables":{"first":10,"after":"c1","token":"[REDACTED]","term":"[REDACTED]"}}"#
        )
    }

    func testOperationsUnderPayloadAndInBatches() {
        let subscribe = #"{"type":"subscribe","id":"1","payload":{"query":"subscription { s(token: \"S3CR3T\") }","variables":{"t":"S3CR3T"}}}"#
        XCTAssertEqual(
            masked(subscribe),
            #"{"type":"subscribe","id":"1","payload":{"query":"subscription { s(token: ***) }","variables":{"t":"[REDACTED]"}}}"#
        )
        let batch = #"[{"query":"{ a }","variables":{"a":"S3CR3T"}},{"query":"{ b(x: 1) }","variables":null}]"#
        XCTAssertEqual(masked(batch), #"[{"query":"{ a }","variables":{"a":"[REDACTED]"}},{"query":"{ b(x: 1) }","variables":"[REDACTED]"}]"#)
        let notAnOperation = #"{"data":{"variables":{"a":"x"}}}"#
        XCTAssertEqual(masked(notAnOperation), notAnOperation)
    }

    func testKeysThatLookLikeSecretsAreMaskedAtStrict() {
        let input = #"{"sk_live_51H8abcdef":true,"name":"x","550e8400-e29b-41d4-a716-446655440000":{"line2":"v"},"eyJhbGciOiJIUzI1NiJ9":1,"a+b/c=":2}"#
        XCTAssertEqual(
            masked(input, .strict),
            #"{"[REDACTED]":"[REDACTED]","name":"[REDACTED]","[REDACTED]":{"line2":"[REDACTED]"},"[REDACTED]":"[REDACTED]","[REDACTED]":"[REDACTED]"}"#
        )
        XCTAssertEqual(
            masked(input),
            #"{"sk_live_51H8abcdef":true,"name":"x","550e8400-e29b-41d4-a716-446655440000":{"line2":"v"},"eyJhbGciOiJIUzI1NiJ9":1,"a+b/c=":2}"#,
            "keys are structure at .standard"
        )
    }
}
