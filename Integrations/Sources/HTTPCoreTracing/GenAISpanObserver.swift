import Foundation
import HTTPCore
import HTTPCoreObservation
import HTTPCoreGenAI
import Tracing

/// An ``/HTTPCoreObservation/HTTPObserver`` that records each LLM call (`event.genAI`) as the span
/// OpenTelemetry's GenAI conventions describe: kind CLIENT, named `{gen_ai.operation.name}
/// {gen_ai.request.model}` (the operation alone when the model is unknown), covering the whole exchange with
/// its retries, with the call's `gen_ai.*`, `server.*` and `error.type` attributes
/// (``/HTTPCoreGenAI/GenAIExchange/attributes``) and an error status when the call failed.
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
/// span current where the exchange was created (`ServiceContext.current` on the caller's task,
/// which emits the created event). That holds for a streamed call whose body is read to its
/// end on another task, or dropped unread, which emits the terminal event elsewhere. The HTTP
/// spans keep their names and HTTP attributes, as the HTTP conventions want.
///
/// The observer keeps each traced exchange's context from its created event to its terminal
/// one, in an ``/HTTPCoreObservation/HTTPExchangeTable`` of at most `maximumTrackedExchanges` exchanges in
/// flight; an exchange created beyond them (counted by ``untrackedExchangeCount``, and the
/// table's filling reported), or before the observer subscribed, gets the span current where
/// its terminal event is emitted.
///
/// The attributes' texts from the wire (models, stop sequences, the response id, finish
/// reasons, the provider's error code) are as the client's policy masked them when the facts
/// were derived (`HTTPCorePolicy.redactor`, the one place exchanges are redacted); a stop
/// sequence is known only when the policy captures bodies.
///
/// Prompt and completion content (`gen_ai.input.messages`, `gen_ai.output.messages`) is never
/// recorded: the convention makes it opt-in, and the event carries none of it. An exchange that
/// is no LLM call costs a task-local read when created and, when it was created inside a
/// `ServiceContext`, a table entry until it ends.
public struct GenAISpanObserver: HTTPObserver {
    /// The tracer given at creation, if any; `nil` reads the bootstrapped one at each call.
    private let configuredTracer: (any Tracer)?
    /// The context each exchange in flight was created in, shared by copies of this observer.
    private let parents: HTTPExchangeTable<ServiceContext>

    /// The default number of exchanges in flight whose caller's context is kept.
    public static let defaultMaximumTrackedExchanges = 10_000

    /// Creates an observer. Without a `tracer`, each call is recorded with the one bootstrapped
    /// then (`InstrumentationSystem.tracer`).
    ///
    /// - Parameters:
    ///   - tracer: The tracer spans are made with; the bootstrapped one when `nil`.
    ///   - maximumTrackedExchanges: How many exchanges in flight keep the context they were
    ///     created in, the parent of their span; 10,000 by default. Only exchanges created
    ///     inside a `ServiceContext` take a place.
    ///   - diagnostics: Where the observer reports that it keeps `maximumTrackedExchanges`
    ///     already (a warning), and that it has room again (a notice, with how many it did not
    ///     keep): see ``/HTTPCoreObservation/HTTPExchangeTable``. ``/HTTPCoreObservation/HTTPDiagnostics`` by default.
    public init(
        tracer: (any Tracer)? = nil, maximumTrackedExchanges: Int = GenAISpanObserver.defaultMaximumTrackedExchanges,
        diagnostics: @escaping @Sendable (HTTPDiagnostic) -> Void = { HTTPDiagnostics.report($0) }
    ) {
        configuredTracer = tracer
        parents = HTTPExchangeTable(limit: maximumTrackedExchanges, owner: "GenAISpanObserver", diagnostics: diagnostics)
    }

    /// How many exchanges were created inside a `ServiceContext` while
    /// `maximumTrackedExchanges` others were in flight: their span, if they are LLM calls, has
    /// the span current at their end as parent.
    public var untrackedExchangeCount: Int { parents.untrackedCount }

    /// The tracer spans are made with now: the one given, or the bootstrapped one.
    public var tracer: any Tracer { configuredTracer ?? InstrumentationSystem.tracer }

    /// The created events, whose context becomes the parent, and the terminal events: the only
    /// ones that carry an LLM call's facts.
    public var handledEventNames: Set<HTTPEvent.Name>? { HTTPEvent.Name.terminal.union([.requestCreated]) }

    /// Keeps the context of a created event, records the span of an LLM call's terminal event;
    /// ignores any other event.
    public func handle(_ event: HTTPEvent) {
        if event.name == .requestCreated {
            if let context = ServiceContext.current { parents.keep(context, for: event.requestID) }
            return
        }
        let exchange: HTTPEvent.Exchange
        switch event.step {
        case .succeeded(_, let ended), .failed(_, _, let ended), .cancelled(_, let ended): exchange = ended
        case .created, .started, .received, .message, .retried: return
        }
        let parent = parents.take(for: event.requestID)
        guard let call = event.genAI else { return }
        let attributes = call.attributes
        let tracer = tracer
        let started = Self.instant(exchange.startedAt)
        let context = parent ?? ServiceContext.current ?? .topLevel
        let span = tracer.startSpan(Self.spanName(call, attributes), context: context, ofKind: .client, at: started)
        var errorType: String?
        for attribute in attributes {
            span.attributes[attribute.name] = Self.attribute(attribute.value)
            if attribute.name == "error.type" { errorType = attribute.value.text }
        }
        if let errorType {
            span.setStatus(SpanStatus(code: .error, message: errorType))
        }
        span.end(at: Self.instant(exchange.endedAt))
    }

    /// The convention's span name: `{gen_ai.operation.name} {gen_ai.request.model}`, or the
    /// operation alone when the model asked for is unknown.
    private static func spanName(_ call: GenAIExchange, _ attributes: [HTTPExchangeNote.Attribute]) -> String {
        guard let model = attributes.first(where: { $0.name == "gen_ai.request.model" })?.value.text else { return call.operation.name }
        return "\(call.operation.name) \(model)"
    }

    /// The tracer's instant of `date`.
    private static func instant(_ date: Date) -> DefaultTracerClock.Instant {
        DefaultTracerClock.Instant(nanosecondsSinceEpoch: UInt64(max(0, date.timeIntervalSince1970 * 1_000_000_000).rounded()))
    }

    /// The span attribute of a GenAI attribute value.
    private static func attribute(_ value: HTTPExchangeNote.Value) -> SpanAttribute {
        switch value {
        case .string(let string): .string(string)
        case .int(let int): .int64(Int64(int))
        case .double(let double): .double(double)
        case .bool(let bool): .bool(bool)
        case .stringArray(let strings): .stringArray(strings)
        }
    }
}
