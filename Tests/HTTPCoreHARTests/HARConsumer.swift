import Foundation
import XCTest

/// `Peers/har_check.py` in a child process: PyPI's haralyzer reads a HAR file, and the script
/// checks the HAR 1.2 field rules; this is what they report.
///
/// Without haralyzer the tests that use it skip, saying what to install; with
/// `HTTPCORE_REQUIRE_PEERS=1` (as in CI) they fail instead.
struct HARConsumer: Decodable {
    /// The HAR 1.2 rules the file breaks; empty when it is valid.
    let errors: [String]
    let version: String
    let creator: [String: String]
    /// haralyzer's page ids: `unknown` holds the entries without a `pageref`.
    let pages: [String]
    /// How many entries haralyzer's `get_requests` and `post_requests` filters found.
    let getCount: Int
    let postCount: Int
    /// The entries in haralyzer's order (by start time).
    let entries: [Entry]

    /// One entry as haralyzer's `HarEntry`, `Request` and `Response` read it.
    struct Entry: Decodable {
        let startTime: String?
        let time: Double
        let timings: [String: Double]
        let method: String
        let url: String
        let httpVersion: String
        let requestHeaders: [NameValue]
        let requestCookies: [Cookie]
        let queryString: [NameValue]
        let requestBodySize: Int
        let requestMimeType: String?
        let requestText: String?
        let params: [NameValue]?
        let status: Int
        let statusText: String
        let responseHeaders: [NameValue]
        let responseCookies: [Cookie]?
        let responseBodySize: Int
        let redirectURL: String?
        let mimeType: String
        let contentSize: Int
        let text: String
        let encoding: String?
        /// The content's bytes in hex, decoded by Python, when `encoding` is base64.
        let decodedHex: String?
        let error: String?
        let errorType: String?
        let outcome: String?
        let attempt: Int?
        let requestId: String?
        let comment: String?
        /// `_resourceType`: `websocket` for a WebSocket connection.
        let resourceType: String?
        /// `_webSocketMessages` as Chrome DevTools' importer keeps them, checked by its rules;
        /// `nil` when the entry has none.
        let webSocketMessages: [WebSocketMessage]?

        /// The value of the first request header with this name (case-insensitive).
        func requestHeader(_ name: String) -> String? {
            requestHeaders.first { $0.name.lowercased() == name.lowercased() }?.value
        }

        /// The value of the first response header with this name (case-insensitive).
        func responseHeader(_ name: String) -> String? {
            responseHeaders.first { $0.name.lowercased() == name.lowercased() }?.value
        }
    }

    /// A WebSocket message as Chrome DevTools' importer reads it: `mask` is whether it was sent.
    struct WebSocketMessage: Decodable, Equatable {
        let type: String
        let opcode: Int
        let data: String
        let mask: Bool
    }

    /// A header, query item or form parameter.
    struct NameValue: Decodable, Equatable {
        let name: String
        let value: String?
    }

    /// A cookie with its optional attributes.
    struct Cookie: Decodable, Equatable {
        let name: String
        let value: String
        var path: String? = nil
        var domain: String? = nil
        var expires: String? = nil
        var httpOnly: Bool? = nil
        var secure: Bool? = nil
    }

    struct PeerError: Error, CustomStringConvertible {
        let description: String
    }

    /// What haralyzer and the HAR 1.2 rules say of the file at `url`.
    static func check(_ url: URL) throws -> HARConsumer {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Peers/har_check.py")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script.path, url.path]
        let output = Pipe()
        process.standardOutput = output
        do {
            try process.run()
        } catch {
            try missingPeer("python3 could not be started: \(error)")
        }
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        if process.terminationStatus == 3 {
            try missingPeer("haralyzer is not installed (python3 -m pip install haralyzer; .ci/run does)")
        }
        guard process.terminationStatus == 0 else {
            throw PeerError(description: "har_check.py exited with \(process.terminationStatus): \(String(decoding: data, as: UTF8.self))")
        }
        return try JSONDecoder().decode(HARConsumer.self, from: data)
    }

    private static func missingPeer(_ reason: String) throws -> Never {
        if ProcessInfo.processInfo.environment["HTTPCORE_REQUIRE_PEERS"] != nil { throw PeerError(description: reason) }
        throw XCTSkip(reason)
    }
}
