import Foundation
import HTTPCore

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension HTTPError {
    /// Maps an error from URLSession to the stable HTTPCore error, with a message built from
    /// the code and the URL's host and port only.
    ///
    /// On Linux, three FoundationNetworking codes are read for an http(s) URL the libcurl way;
    /// Apple's URLSession means what the codes say, so there they keep their meaning:
    ///
    /// | FoundationNetworking (curl) | HTTPCore |
    /// |---|---|
    /// | -1011 bad server response (curl's "Empty reply from server": closed before a complete status line) | `connection_lost` |
    /// | -1 unknown (curl failures without a code of their own, in an exchange "transfer closed with bytes remaining": closed in the headers or the body) | `connection_lost` |
    /// | -1002 unsupported URL (curl's "Received HTTP/0.9", "Unsupported response code": not HTTP) | ``/HTTPCore/HTTPError/invalidResponse`` |
    ///
    /// A connection that closes before the response is complete is `connection_lost` wherever
    /// it closes, as with every HTTPCore transport; only bytes that cannot be HTTP are an invalid
    /// response.
    /// The host and port of `url`, as the transport's messages name where it was going: never
    /// its path, query or user.
    static func target(_ url: URL) -> String {
        [url.host, url.port.map(String.init)].compactMap { $0 }.joined(separator: ":")
    }

    /// The error for a `CONNECT` request, refused before anything is sent: URLSession sends it
    /// as an ordinary request, and a server that accepts it switches the connection to a tunnel
    /// URLSession cannot read, so the call would wait out the caller's whole timeout.
    static func noTunnels(_ url: URL) -> HTTPError {
        .transport(.invalidRequest, message: "method CONNECT: URLSession cannot open a tunnel (RFC 9110, section 9.3.6) (\(target(url)))")
    }

    package init(urlSessionError error: any Error, url: URL) {
        guard let urlError = error as? URLError else {
            self = .transport(.other, message: "URLSession failed (\(type(of: error)))")
            return
        }
        let target = Self.target(url)
        func transport(_ code: Code, _ text: String) -> HTTPError {
            .transport(code, message: "\(text) (\(target), URLError \(urlError.code.rawValue))")
        }
        let isHTTP = ["http", "https"].contains(url.scheme?.lowercased() ?? "")
        switch urlError.code {
        #if canImport(FoundationNetworking)
        case .unsupportedURL where isHTTP: self = .invalidResponse
        case .badServerResponse where isHTTP:
            self = transport(.connectionLost, "the server closed the connection without answering")
        case .unknown where isHTTP:
            self = transport(.connectionLost, "the connection closed before the response was complete")
        case .unsupportedURL where ["ws", "wss"].contains(url.scheme?.lowercased() ?? ""):
            self = transport(
                .invalidRequest,
                "url: FoundationNetworking opens WebSockets only over a libcurl built with them (ws and wss among `curl -V`'s protocols), "
                    + "and this one has none; use HTTPCoreWebSocket from the integrations"
            )
        #endif
        case .timedOut: self = .timeout
        case .cancelled: self = .cancelled
        case .badServerResponse, .cannotParseResponse, .cannotDecodeRawData, .cannotDecodeContentData:
            self = .invalidResponse
        case .cannotConnectToHost: self = transport(.cannotConnect, "could not connect to the host")
        case .cannotFindHost, .dnsLookupFailed: self = transport(.cannotResolveHost, "could not resolve the host")
        case .networkConnectionLost: self = transport(.connectionLost, "the connection was lost")
        case .notConnectedToInternet: self = transport(.notConnected, "not connected to a network")
        case .secureConnectionFailed, .serverCertificateUntrusted, .serverCertificateHasBadDate,
            .serverCertificateNotYetValid, .serverCertificateHasUnknownRoot, .clientCertificateRejected,
            .clientCertificateRequired:
            self = transport(.secureConnectionFailed, "the secure connection failed")
        case .badURL: self = transport(.invalidRequest, "url: URLSession cannot use it")
        case .unsupportedURL: self = transport(.invalidRequest, "url: URLSession does not support it")
        case .dataLengthExceedsMaximum: self = transport(.invalidRequest, "body: longer than URLSession can send")
        case .requestBodyStreamExhausted: self = transport(.invalidRequest, "body: the stream ended before its declared length")
        case .httpTooManyRedirects, .redirectToNonExistentLocation:
            self = transport(.tooManyRedirects, "too many redirects")
        case .zeroByteResource:
            self = transport(.connectionLost, "the server closed the connection without answering")
        default:
            self = transport(.other, "URLSession failed")
        }
    }
}

extension HTTPError.Code {
    /// The `URLSession` of ``URLSessionClient/makeDefaultSession()`` was invalidated
    /// (`finishTasksAndInvalidate()`, `invalidateAndCancel()`) and starts no new task: send
    /// through a new session. Thrown before the session is touched, where URLSession would trap.
    public static let sessionInvalidated = HTTPError.Code("session_invalidated")
}
