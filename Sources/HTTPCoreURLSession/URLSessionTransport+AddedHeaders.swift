import Foundation
import HTTPCore
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension URLSessionTransport {
    /// The header fields `session` adds to a request without them, as far as this transport
    /// can tell: its configuration's `httpAdditionalHeaders`, and on Linux those
    /// FoundationNetworking and its libcurl add (`User-Agent`, `Accept`, `Accept-Encoding`,
    /// `Accept-Language`). Apple's URLSession adds its own `User-Agent`, `Accept-Encoding` and
    /// `Accept-Language` too, which it does not report.
    static func headersAdded(by session: URLSession) -> HTTPHeaders {
        var added = HTTPHeaders()
        if let additional = session.configuration.httpAdditionalHeaders {
            for (key, value) in additional {
                guard let name = key as? String else { continue }
                added.add(name: name, value: "\(value)")
            }
        }
        #if canImport(FoundationNetworking)
        for field in LibcurlDefaults.headers where !added.contains(field.name) {
            added.add(name: field.name, value: field.value)
        }
        #endif
        return added
    }

    /// Of `sessionHeaders` (``headersAdded(by:)``), those `request` does not set itself, and
    /// on Linux the form `Content-Type` FoundationNetworking adds to a body without one.
    /// Cheap when the request sets none of them: the same storage is handed on.
    static func addedHeaders(_ sessionHeaders: HTTPHeaders, to request: HTTPRequest, hasBody: Bool) -> HTTPHeaders {
        var added = sessionHeaders
        if sessionHeaders.contains(where: { request.headers.contains($0.name) }) {
            added = HTTPHeaders(sessionHeaders.filter { !request.headers.contains($0.name) })
        }
        #if canImport(FoundationNetworking)
        if hasBody, !request.headers.contains("Content-Type"), !added.contains("Content-Type") {
            added.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
        }
        #endif
        return added
    }
}

#if canImport(FoundationNetworking)
/// The headers FoundationNetworking and libcurl add to every request without them: the
/// `User-Agent` FoundationNetworking makes from the process name and the curl version, curl's
/// `Accept`, the `Accept-Encoding` of the decoders this libcurl was built with, and
/// FoundationNetworking's `Accept-Language`. Read once, from the libcurl the process runs.
enum LibcurlDefaults {
    static let headers: HTTPHeaders = {
        var headers = HTTPHeaders()
        let version = curlVersion()
        if let curl = version?.split(separator: " ").first, curl.hasPrefix("libcurl/") {
            headers.add(name: "User-Agent", value: "\(ProcessInfo.processInfo.processName) (unknown version) curl/\(curl.dropFirst(8))")
        }
        headers.add(name: "Accept", value: "*/*")
        if let version {
            // curl offers the encodings it can decode, in this order.
            let decoders = [("zlib/", "deflate, gzip"), ("brotli/", "br"), ("zstd/", "zstd")]
            let offered = decoders.filter { version.contains($0.0) }.map(\.1)
            if !offered.isEmpty { headers.add(name: "Accept-Encoding", value: offered.joined(separator: ", ")) }
        }
        headers.add(name: "Accept-Language", value: "en")
        return headers
    }()

    /// `curl_version()` of the libcurl FoundationNetworking loaded, such as
    /// `libcurl/7.88.1 OpenSSL/3.0.19 zlib/1.2.13 brotli/1.0.9 zstd/1.5.4`; `nil` when the
    /// symbol cannot be found.
    private static func curlVersion() -> String? {
        guard let process = dlopen(nil, RTLD_NOW), let symbol = dlsym(process, "curl_version") else { return nil }
        typealias CurlVersion = @convention(c) () -> UnsafePointer<CChar>?
        return unsafeBitCast(symbol, to: CurlVersion.self)().map { String(cString: $0) }
    }
}
#endif
