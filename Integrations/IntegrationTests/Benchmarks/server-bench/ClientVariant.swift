/// The ways the benchmark's GET is made, in the order each round runs them.
///
/// Each is a fresh AHC `HTTPClient` per cell, configured the same way
/// (``VariantClient/make(_:url:devSeeURL:)``); the HTTPCore ones wrap it in
/// `HTTPTransportClient(asyncHTTPClient:)` with a dispatcher of their own.
enum ClientVariant: String, CaseIterable, Codable, Sendable {
    /// `execute(_:deadline:)` with a 30 s deadline and `body.collect(upTo:)`: what a server
    /// developer writes with AHC alone. The reference of every ratio.
    case bare
    /// Bare AHC again, measured as a variant: its ratio to bare is what the machine's noise
    /// alone makes of a ratio (an A/A comparison).
    case bareAgain = "bare-again"
    /// Bare AHC with 2 µs of CPU work on the caller's thread per request
    /// (``AddedCPU/spin(microseconds:)``): a calibration of what 2 µs per request costs in
    /// throughput on this machine, against which an HTTPCore variant's ratio can be read.
    case barePlus2 = "bare+2us"
    /// Bare AHC with 5 µs of CPU work on the caller's thread per request: the same
    /// calibration, for 5 µs.
    case barePlus5 = "bare+5us"
    /// Bare AHC with what a service writes by hand instead of HTTPCore, inline on the
    /// caller's task (``HandWrittenGET``): one swift-distributed-tracing span with its context
    /// injected into the headers, a swift-metrics timer and counter, one swift-log line, on the
    /// same backends as `production` (nothing bootstrapped, a no-op log handler).
    case handWritten = "hand-written"
    /// Bare AHC with, by hand and inline, the work `production` does for a request
    /// (``HandWrittenProductionGET``): `hand-written` plus a W3C trace context, a retry loop,
    /// `MetricsObserver`'s five instruments and `LoggingObserver`'s line. Not one of issue 38's
    /// rows: it tells how much of `production`'s cost over `hand-written` is the extra work.
    case handWrittenProduction = "hand-written-production"
    /// HTTPCore over AHC, no observer, no middleware, `timeout: 30`.
    case httpcore
    /// The same with no timeout.
    case httpcoreNoTimeout = "httpcore-no-timeout"
    /// `httpcore` with `MetricsObserver` subscribed (swift-metrics not bootstrapped).
    case metrics
    /// `httpcore` with `LoggingObserver` subscribed (a no-op log handler).
    case logging
    /// `httpcore` with `DevSeeObserver` subscribed, its server down.
    case devsee
    /// `httpcore` through `TracingMiddleware` (no tracer bootstrapped),
    /// `TraceContextMiddleware` and `RetryMiddleware`, no observer.
    case middlewares
    /// HTTPCore's production stack: `MetricsObserver` and `LoggingObserver` subscribed, and
    /// `TracingMiddleware` (no tracer bootstrapped), `TraceContextMiddleware` and
    /// `RetryMiddleware`, `timeout: 30`. What `hand-written` does by hand.
    case production
    /// `production` plus `DevSeeObserver` (its server down): what dev-see adds to it.
    case full

    /// The CPU work the variant adds to each of bare's requests, in microseconds: 0 but for
    /// the calibration variants.
    var addedCPUMicroseconds: Int {
        switch self {
        case .barePlus2: 2
        case .barePlus5: 5
        default: 0
        }
    }

    /// Whether the variant is bare AHC, with or without added work.
    var isBare: Bool { self == .bare || self == .bareAgain || addedCPUMicroseconds > 0 }

    /// One line saying what the variant is, for the report's notes.
    var summary: String {
        switch self {
        case .bare: "AHC execute(_:deadline: now + 30 s) + body.collect(upTo:)"
        case .bareAgain: "bare again, a client of its own: the noise floor of a ratio"
        case .barePlus2: "bare + 2 µs of CPU on the caller's thread per request: what 2 µs costs here"
        case .barePlus5: "bare + 5 µs of CPU on the caller's thread per request: what 5 µs costs here"
        case .handWritten: "bare + by hand, inline: withSpan (context injected into the headers), a swift-metrics Timer and Counter (method, status), one swift-log info line (method, url, status, duration); same backends as production"
        case .handWrittenProduction: "hand-written + by hand what production adds: a W3C traceparent (new trace), a retry loop (3 attempts, 408/429/502/503/504), MetricsObserver's 5 instruments and labels, LoggingObserver's line with the trace ids"
        case .httpcore: "HTTPTransportClient(asyncHTTPClient:), own dispatcher, no observer, no middleware, timeout 30"
        case .httpcoreNoTimeout: "as httpcore, no timeout"
        case .metrics: "httpcore + MetricsObserver (swift-metrics not bootstrapped)"
        case .logging: "httpcore + LoggingObserver (SwiftLogNoOpLogHandler)"
        case .devsee: "httpcore + DevSeeObserver (server down)"
        case .middlewares: "httpcore + Tracing, TraceContext, Retry middlewares, no observer"
        case .production: "metrics + logging + Tracing, TraceContext, Retry middlewares, timeout 30: the production stack"
        case .full: "production + DevSeeObserver (server down)"
        }
    }
}
