import AsyncHTTPClient
import Foundation
import HTTPCore
import HTTPCoreObservation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension HTTPCore.HTTPError {
    /// Maps an error from AsyncHTTPClient or SwiftNIO to the stable HTTPCore error, with a
    /// message that names the host and port only.
    ///
    /// | AHC / NIO | HTTPCore |
    /// |---|---|
    /// | `deadlineExceeded`, `readTimeout`, `writeTimeout` | ``/HTTPCore/HTTPError/timeout`` |
    /// | `cancelled`, `CancellationError` | ``/HTTPCore/HTTPError/cancelled`` |
    /// | `connectTimeout`, connection refused (`ECONNREFUSED`), `NIOConnectionError` with attempts | `cannot_connect` |
    /// | DNS failure (`NIOConnectionError` without attempts) | `cannot_resolve_host` |
    /// | `remoteConnectionClosed` (closed without answering), `ECONNRESET`, `EPIPE`, closed channel | `connection_lost` |
    /// | `HTTPParserError.invalidEOFState`, `.closedConnection` (closed inside the status line, the headers or the body) | `connection_lost` |
    /// | any other `HTTPParserError` (the answer is not HTTP: garbage, a bad status line or header) | ``/HTTPCore/HTTPError/invalidResponse`` |
    /// | TLS errors, `tlsHandshakeTimeout` | `secure_connection_failed` |
    /// | redirect limit or cycle | `too_many_redirects` |
    /// | what the caller caused: a bad URL, scheme, header or body length, a TRACE body, a client already shut down, an invalid AHC configuration | `invalid_request`, saying what to fix |
    /// | anything else | `other`, with AHC's short description and case, or the error's type |
    ///
    /// `HTTPTransportClient` refuses most of the caller's mistakes before AHC sees the request
    /// (`HTTPRequest.validate()`); these rows cover a transport called directly, and what only
    /// AHC can know.
    ///
    /// A response body over the transport's limit is ``/HTTPCore/HTTPError/Code/responseTooLarge``; the
    /// transport reports it itself.
    public init(asyncHTTPClientError error: any Error, url: URL) {
        let target = AsyncHTTPClientTransport.target(url)
        func transport(_ code: Code, _ text: String) -> HTTPCore.HTTPError {
            .transport(code, message: "\(text) (\(target))")
        }
        switch error {
        case let error as HTTPCore.HTTPError:
            self = error
        case is CancellationError:
            self = .cancelled
        case let error as HTTPClientError:
            switch error {
            case .deadlineExceeded, .readTimeout, .writeTimeout, .getConnectionFromPoolTimeout: self = .timeout
            case .cancelled: self = .cancelled
            case .connectTimeout: self = transport(.cannotConnect, "connecting timed out")
            case .remoteConnectionClosed: self = transport(.connectionLost, "the server closed the connection")
            case .tlsHandshakeTimeout: self = transport(.secureConnectionFailed, "the TLS handshake timed out")
            case .redirectLimitReached, .redirectCycleDetected: self = transport(.tooManyRedirects, "too many redirects")
            default:
                if let mistake = Self.callersMistake(error) {
                    self = transport(.invalidRequest, mistake)
                } else {
                    let name = error.description.prefix { $0 != "(" }
                    self = transport(.other, "AsyncHTTPClient failed: \(error.shortDescription) (\(name))")
                }
            }
        case let error as HTTPParserError:
            switch error {
            case .invalidEOFState, .closedConnection:
                self = transport(.connectionLost, "the connection closed before the response was complete")
            default:
                self = .invalidResponse
            }
        case let error as NIOConnectionError:
            let resolved = error.dnsAError == nil || error.dnsAAAAError == nil
            self = resolved && !error.connectionErrors.isEmpty
                ? transport(.cannotConnect, "could not connect to the host")
                : transport(.cannotResolveHost, "could not resolve the host")
        case let error as IOError:
            switch error.errnoCode {
            case ECONNREFUSED, EHOSTUNREACH, ENETUNREACH: self = transport(.cannotConnect, "could not connect to the host")
            case ECONNRESET, EPIPE: self = transport(.connectionLost, "the connection was lost")
            default: self = transport(.other, "an I/O error \(error.errnoCode)")
            }
        case let error as ChannelError:
            switch error {
            case .connectTimeout: self = transport(.cannotConnect, "connecting timed out")
            case .ioOnClosedChannel, .eof, .outputClosed, .alreadyClosed: self = transport(.connectionLost, "the connection was lost")
            default: self = transport(.other, "a channel error")
            }
        case is NIOSSLError, is BoringSSLError, is NIOSSLExtraError:
            self = transport(.secureConnectionFailed, "the secure connection failed")
        default:
            self = transport(.other, "\(type(of: error))")
        }
    }

    /// What the caller must fix, for an AHC error the caller caused; `nil` for any other.
    ///
    /// Never quotes what the error carries: a refused header value may be a secret.
    private static func callersMistake(_ error: HTTPClientError) -> String? {
        switch error {
        case .invalidURL: return "url: AsyncHTTPClient cannot parse it"
        case .emptyHost: return "url has no host"
        case .emptyScheme: return "url has no scheme: use an absolute http or https URL"
        case .missingSocketPath: return "url names a Unix socket without its path"
        case .alreadyShutdown:
            return "the AsyncHTTPClient HTTPClient was shut down before this request: send only while its owner keeps it running"
        case .traceRequestWithBody: return "body: a TRACE request has no body (RFC 9110, section 9.3.8)"
        case .bodyLengthMismatch: return "body: its length differs from the length it declared"
        case .writeAfterRequestSent: return "body: it was still written after the request ended"
        case .identityCodingIncorrectlyPresent: return "header Transfer-Encoding: identity is not allowed"
        case .invalidRedirectConfiguration, .invalidHTTPVersionConfiguration, .invalidDNSOverridesConfiguration, .invalidLocalAddress,
            .invalidProxyConfiguration:
            return "the AsyncHTTPClient configuration is invalid: \(error.shortDescription)"
        default:
            // The cases that carry a value compare by their name alone.
            switch error.description.prefix(while: { $0 != "(" }) {
            case "HTTPClientError.unsupportedScheme": return "url scheme is not supported by AsyncHTTPClient: use http or https"
            case "HTTPClientError.invalidHeaderFieldNames": return "header name: AsyncHTTPClient refused one that is not a token"
            case "HTTPClientError.invalidHeaderFieldValues":
                return "header value: AsyncHTTPClient refused one with a control character"
            default: return nil
            }
        }
    }
}
