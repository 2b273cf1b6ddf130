import Foundation
import HTTPCore
import Tracing

/// An ``/HTTPCore/HTTPObserver`` that records each LLM call (``/HTTPCore/HTTPEvent/genAI``) as the span
/// OpenTelemetry's GenAI conventions describe: kind CLIENT, named `{gen_ai.operation.name}
/// {gen_ai.request.model}` (``/HTTPCore/GenAIExchange/spanName``), covering the whole exchange with
/// its retries, with the call's `gen_ai.*`, `server.*` and `error.type` attributes
/// (``/HTTPCore/GenAIExchange/attributes``) and an error status when the call failed.
///
/// ```swift
/// let client = URLSessionClient(middlewares: [RetryMiddleware(), TracingMiddleware()])
/// HTTPEventDispatcher.shared.subscribe(GenAISpanObserver())
/// ```
///
/// **Where the span sits.** The convention's span would be the parent of the HTTP client spans
/// that ``TracingMiddleware`` makes. HTTPCore learns the call's facts (model, usage, finish
/// reasons, time to first chunk) only when its response body ends, from the terminal event,
/// and a span cannot be re-parented once started; so this span is recorded at that event,
/// with the exchange's start and end times, as a *sibling* of the HTTP spans: a child of the
/// span current where the event is emitted (the dispatcher calls observers on the task that
/// ran the exchange, so for a call awaited in the caller's span, that span). The HTTP spans
/// keep their names and HTTP attributes, as the HTTP conventions want.
///
/// Prompt and completion content (`gen_ai.input.messages`, `gen_ai.output.messages`) is never
/// recorded: the convention makes it opt-in, and the event carries none of it. Events that are
/// no LLM call cost one `nil` check.
public struct GenAISpanObserver: HTTPObserver {
    /// The tracer given at creation, if any; `nil` reads the bootstrapped one at each call.
    private let configuredTracer: (any Tracer)?

    /// Creates an observer. Without a `tracer`, each call is recorded with the one bootstrapped
    /// then (`InstrumentationSystem.tracer`).
    public init(tracer: (any Tracer)? = nil) {
        configuredTracer = tracer
    }

    /// The tracer spans are made with now: the one given, or the bootstrapped one.
    public var tracer: any Tracer { configuredTracer ?? InstrumentationSystem.tracer }

    /// The terminal events: the only ones that carry an LLM call's facts.
    public var handledEventNames: Set<HTTPEvent.Name>? { HTTPEvent.Name.terminal }

    /// Records the span of an LLM call's terminal event; ignores any other event.
    public func handle(_ event: HTTPEvent) {
        guard let call = event.genAI, event.name.isTerminal else { return }
        let tracer = tracer
        let started = event.startedAt.map(Self.instant) ?? DefaultTracerClock.now
        let span = tracer.startSpan(call.spanName, context: ServiceContext.current ?? .topLevel, ofKind: .client, at: started)
        for (name, value) in call.attributes {
            span.attributes[name] = Self.attribute(value)
        }
        if let errorType = call.errorType {
            span.setStatus(SpanStatus(code: .error, message: errorType))
        }
        span.end(at: event.endedAt.map(Self.instant) ?? DefaultTracerClock.now)
    }

    /// The tracer's instant of `date`.
    private static func instant(_ date: Date) -> DefaultTracerClock.Instant {
        DefaultTracerClock.Instant(nanosecondsSinceEpoch: UInt64(max(0, date.timeIntervalSince1970 * 1_000_000_000).rounded()))
    }

    /// The span attribute of a GenAI attribute value.
    private static func attribute(_ value: GenAIAttributeValue) -> SpanAttribute {
        switch value {
        case .string(let string): .string(string)
        case .int(let int): .int64(Int64(int))
        case .double(let double): .double(double)
        case .bool(let bool): .bool(bool)
        case .stringArray(let strings): .stringArray(strings)
        }
    }
}
