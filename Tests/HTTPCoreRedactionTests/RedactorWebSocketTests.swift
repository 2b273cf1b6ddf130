import Foundation
import HTTPCoreRedaction
import XCTest

/// What WebSocket subprotocols put their credentials in: the messages' JSON (graphql-ws's
/// `connection_init`, AppSync's `extensions.authorization`) and the handshake's headers.
final class RedactorWebSocketTests: XCTestCase {
    private let redactor = Redactor()
    private let jwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiI0MiJ9.c2lnbmF0dXJlLXNpZ25hdHVyZQ"

    private func message(_ text: String) -> String {
        String(decoding: redactor.redactedStreamData(Data(text.utf8), isTruncated: false), as: UTF8.self)
    }

    func testEveryPlaceAGraphQLOverWebSocketTokenIsSentIsMaskedAndTheProtocolFieldsAreKept() {
        let cases: [(sent: String, shown: String)] = [
            (#"{"type":"connection_init","payload":{"authToken":"\#(jwt)"}}"#, #"{"type":"connection_init","payload":{"authToken":"[REDACTED]"}}"#),
            (#"{"type":"connection_init","payload":{"Authorization":"Bearer \#(jwt)"}}"#, #"{"type":"connection_init","payload":{"Authorization":"[REDACTED]"}}"#),
            (#"{"type":"connection_init","payload":{"headers":{"Authorization":"Bearer \#(jwt)"}}}"#, #"{"type":"connection_init","payload":{"headers":{"Authorization":"[REDACTED]"}}}"#),
            (#"{"type":"connection_init","payload":{"token":"opaque-session-7731"}}"#, #"{"type":"connection_init","payload":{"token":"[REDACTED]"}}"#),
            (#"{"type":"connection_init","payload":{"x-api-key":"da2-abcdefghijklmnopqrstuvwxyz"}}"#, #"{"type":"connection_init","payload":{"x-api-key":"[REDACTED]"}}"#),
            (
                #"{"id":"1","type":"subscribe","payload":{"query":"subscription { orders { id } }","extensions":{"authorization":{"host":"api.example.com","Authorization":"\#(jwt)"}}}}"#,
                #"{"id":"1","type":"subscribe","payload":{"query":"subscription { orders { id } }","extensions":{"authorization":{"host":"[REDACTED]","Authorization":"[REDACTED]"}}}}"#
            ),
            (#"{"id":"1","type":"next","payload":{"data":{"orders":{"id":"4711","count":3}}}}"#, #"{"id":"1","type":"next","payload":{"data":{"orders":{"id":"4711","count":3}}}}"#),
            (#"{"type":"ping"}"#, #"{"type":"ping"}"#),
        ]
        for (sent, shown) in cases {
            XCTAssertEqual(message(sent), shown, sent)
        }
    }

    func testTheHandshakesSubprotocolHeaderHidesABearerTokenAndKeepsProtocolNames() {
        XCTAssertEqual(redactor.redactedHeaderValue("graphql-transport-ws", name: "Sec-WebSocket-Protocol"), "graphql-transport-ws")
        XCTAssertEqual(
            redactor.redactedHeaderValue("base64url.bearer.authorization.k8s.io.\(jwt), v4.channel.k8s.io", name: "Sec-WebSocket-Protocol"),
            "base64url.bearer.authorization.k8s.io.[REDACTED], v4.channel.k8s.io"
        )
        XCTAssertEqual(redactor.redactedHeaderValue("access_token, \(jwt)", name: "Sec-WebSocket-Protocol"), "access_token, [REDACTED]")
    }
}
