import Instrumentation
import NIOHTTP1

/// Writes an instrument's propagation headers (`traceparent`, `tracestate`, ...) into an AHC
/// request's NIO headers, replacing any of the same name: what a service writes to propagate
/// its trace context through AsyncHTTPClient by hand.
struct NIOHTTPHeadersInjector: Injector {
    /// Sets `key` to `value` in `headers`.
    func inject(_ value: String, forKey key: String, into headers: inout HTTPHeaders) {
        headers.replaceOrAdd(name: key, value: value)
    }
}
