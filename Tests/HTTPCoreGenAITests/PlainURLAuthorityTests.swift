import Foundation
import XCTest

@testable import HTTPCore
@testable import HTTPCoreGenAI

/// The host and port read from a URL's text are Foundation's `URL.host` and `URL.port`
/// when they are plain, and nothing is read when they are not (userinfo, which may hold a
/// `:` and digits, included).
final class PlainURLAuthorityTests: XCTestCase {
    /// The host and port read from `url`'s absolute string; `nil` when it is not plain.
    private func authority(_ url: String) -> (host: String, port: Int?)? {
        var text = URL(string: url)!.absoluteString
        return text.withUTF8 { text in
            PlainURLAuthority(text).map { (String(decoding: $0.host, as: UTF8.self), $0.explicitPort) }
        }
    }

    func testAPlainHostAndPortAreFoundations() {
        for url in [
            "https://api.example.com/v1/orders",
            "https://api.example.com:8443/v1/orders",
            "https://api.example.com:08443/v1/orders",
            "https://API.Example.COM:11434/api/chat",
            "https://api.example.com?q=1",
            "https://api.example.com#top",
            "http://127.0.0.1:8000/v1/embeddings",
            "https://xn--bcher-kva.example/v1",
        ] {
            let foundation = URL(string: url)!
            let read = authority(url)
            XCTAssertEqual(read?.host, foundation.host, url)
            XCTAssertEqual(read?.port, foundation.port, url)
        }
        XCTAssertEqual(authority("https://API.Example.COM:11434/api/chat")?.host, "API.Example.COM", "the case as written")
    }

    func testAnAuthorityThatIsNotPlainIsLeftToFoundation() {
        for url in [
            "https://user:11434@api.example.com/api/chat",
            "https://user@api.example.com:11434/api/chat",
            "http://[::1]:11434/api/chat",
            "http://[2001:db8::1]:11434/api/chat",
            "https://b%C3%BCcher.example/v1",
            "https://api.example.com:/v1",
            "https://api.example.com:65536/v1",
            "https://api.example.com:123456/v1",
            "mailto:someone@example.com",
            "file:///tmp/x",
        ] {
            XCTAssertNil(authority(url), url)
        }
    }
}
