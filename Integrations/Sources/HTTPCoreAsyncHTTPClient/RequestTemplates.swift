import AsyncHTTPClient
import Foundation
import NIOConcurrencyHelpers
import NIOHTTP1

/// The AHC requests made last, by URL and method, without headers or body: an exchange to a
/// URL sent to recently copies one instead of making it again.
///
/// Making an `HTTPClient.Request` takes the URL apart through Foundation (`scheme`, `host`,
/// `port`, the percent-encoded path and query), about 11,000 instructions on Linux, a third of
/// what the transport added to a bare AHC exchange; a service calls the same few URLs again
/// and again. What AHC takes from the URL depends on the URL alone, and equal URLs
/// (`==`: the same string, the same base) give the same parts, so a copy is the request AHC
/// would have made. The entries keep no header and no body: nothing a caller sent outlives
/// its exchange here.
///
/// At most ``capacity`` entries, the oldest replaced first; a URL not among them costs a walk
/// of the entries under the lock, then AHC's own parsing, outside it.
final class RequestTemplates: Sendable {
    /// How many requests are kept.
    static let capacity = 8

    private struct Template {
        let method: NIOHTTP1.HTTPMethod
        let request: AsyncHTTPClient.HTTPClient.Request
    }

    private struct State {
        var templates: [Template] = []
        /// Where the next template goes once the table is full: the oldest one's place.
        var next = 0
    }

    private let state = NIOLockedValueBox(State())

    /// An empty table.
    init() {}

    /// AHC's request for `url` and `method`, with `headers` and `body`: a copy of the one
    /// kept for them, else made (and kept without headers and body).
    ///
    /// - Throws: What `HTTPClient.Request.init` throws for a URL AHC cannot send to; such a
    ///   URL is not kept.
    func request(
        url: URL, method: NIOHTTP1.HTTPMethod, headers: NIOHTTP1.HTTPHeaders, body: AsyncHTTPClient.HTTPClient.Body?
    ) throws -> AsyncHTTPClient.HTTPClient.Request {
        let kept = state.withLockedValue { state in
            state.templates.first { $0.method == method && $0.request.url == url }?.request
        }
        var request: AsyncHTTPClient.HTTPClient.Request
        if let kept {
            request = kept
        } else {
            request = try AsyncHTTPClient.HTTPClient.Request(url: url, method: method)
            let template = Template(method: method, request: request)
            state.withLockedValue { state in
                if state.templates.count < Self.capacity {
                    state.templates.append(template)
                } else {
                    state.templates[state.next] = template
                    state.next = (state.next + 1) % Self.capacity
                }
            }
        }
        request.headers = headers
        request.body = body
        return request
    }

    /// The URLs of the requests kept, in the order of their places: for tests.
    var keptURLs: [URL] {
        state.withLockedValue { $0.templates.map(\.request.url) }
    }
}
