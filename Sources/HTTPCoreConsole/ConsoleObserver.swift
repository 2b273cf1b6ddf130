import HTTPCore
import HTTPCoreObservation
import HTTPCoreDelivery

/// An `HTTPObserver` that prints readable, redacted exchanges.
///
/// ```swift
/// import HTTPCoreConsole
///
/// let console = ConsoleObserver(minimumLevel: .info, format: .blocks, body: .prettyJSON)
/// dispatcher.subscribe(console)
/// ...
/// await console.shutdown()   // writes what is still buffered, then stops
/// ```
///
/// Output goes to standard error on Linux and, on Apple platforms, when standard error is a
/// terminal (command-line tools, servers); otherwise to `os.Logger` (subsystem `HTTPCore`,
/// category `http`) with `.private` privacy, so URLs and bodies do not show in the unified
/// log outside debugging. A `write` closure replaces all of this. What it prints is what
/// the client's `HTTPCorePolicy` exposes: headers, URLs and bodies arrive redacted.
///
/// Nothing is formatted or written on the request's task, and no note of what interpreters
/// derived is made there (``handle(_:)`` rates an event by its name and status): the observer runs on the delivery
/// engine, as a `QueuedObserver` does. ``handle(_:)`` appends the event to a buffer bounded
/// by the configuration's `bufferLimit` and `bufferByteLimit` (what the events keep alive:
/// their requests and captured bodies) and returns; one serial dispatch queue makes the text
/// and writes it, in order (`write` runs there too). When output cannot keep up, the oldest
/// waiting events are dropped, counted, and each overflow is reported to the configuration's
/// diagnostics (`HTTPDiagnostics` by default) when it starts and, with the count, when it
/// ends. ``flush()`` (and so `HTTPEventDispatcher.flush()`) returns once what was handled
/// before it is written, even while events keep coming; copies of an observer share one
/// buffer.
///
/// Shut it down before exit: a tool that exits with lines still buffered loses them, and the
/// last ones are often the failure.
public struct ConsoleObserver: HTTPObserver {
    private let minimumLevel: Level
    private let queue: QueuedObserver<ConsoleWriter>

    /// The default delivery: at most 1,000 events or 16 MiB waiting, written in batches of up
    /// to 256 events or 1 MiB as soon as there is one, reports to `HTTPDiagnostics` as
    /// `ConsoleObserver`.
    public static var defaultConfiguration: DeliveryConfiguration {
        var configuration = DeliveryConfiguration()
        configuration.bufferLimit = 1000
        configuration.batching = .init(maximumCount: 256, maximumBytes: 1024 * 1024)
        configuration.diagnostics = { HTTPDiagnostics.report($0.diagnostic(source: "ConsoleObserver", items: "event")) }
        return configuration
    }

    /// Creates a console observer.
    ///
    /// - Parameters:
    ///   - minimumLevel: The least important level printed.
    ///   - format: The layout of an exchange.
    ///   - body: How bodies are shown in ``Format/blocks``.
    ///   - configuration: The buffer's limits, batching, maximum age and diagnostics of its
    ///     delivery; texts are written one batch at a time and never retried, so its
    ///     concurrency, retry and build-ahead settings do not apply.
    ///   - write: Replaces the platform's output; called on the observer's own serial queue,
    ///     one text at a time, in the order the events were handled.
    public init(
        minimumLevel: Level = .info,
        format: Format = .line,
        body: BodyRendering = .sizeOnly,
        configuration: DeliveryConfiguration = ConsoleObserver.defaultConfiguration,
        write: (@Sendable (String) -> Void)? = nil
    ) {
        self.minimumLevel = minimumLevel
        let writer = ConsoleWriter(minimumLevel: minimumLevel, format: format, body: body, write: write ?? ConsoleWriter.platformOutput)
        queue = QueuedObserver(writer, configuration: configuration, handlingEach: writer.writeText)
    }

    /// Every event at `.debug`; otherwise terminal and retried events, the only ones printed.
    public var handledEventNames: Set<HTTPEvent.Name>? {
        minimumLevel == .debug ? nil : HTTPEvent.Name.terminal.union([.requestRetried])
    }

    /// Keeps the event to be printed when its level is at least the observer's minimum: terminal and
    /// retried events by their outcome, the others only at `.debug`.
    ///
    /// It rates the event by its name and status alone, and makes no note: a note can only
    /// raise a success to `.warning` (``Level/warning``), which matters only to a console whose
    /// minimum is `.warning`. That console keeps a success whose exchange carries attachments,
    /// and its writer, which makes the notes to print them, rates it again and prints it only
    /// when a note reports a failure.
    ///
    /// - Parameter event: The event to print.
    public func handle(_ event: HTTPEvent) {
        guard event.name.isTerminal || event.name == .requestRetried || minimumLevel == .debug else { return }
        let level = Self.outcomeLevel(of: event)
        guard level >= minimumLevel || (level == .info && minimumLevel == .warning && !event.attachments.isEmpty) else { return }
        queue.handle(event)
    }

    /// Returns once every event handled before the call is written (or dropped and
    /// counted); events handled meanwhile do not hold it.
    public func flush() async {
        await queue.flush()
    }

    /// Writes what is buffered, then stops: events handled later are dropped, counted and
    /// reported. Call it last, before the process exits.
    public func shutdown() async {
        await queue.shutdown()
    }

    /// The events accepted, written (`delivered`), dropped and pending; and `skipped`, those
    /// ``handle(_:)`` kept that the writer left out once their notes were made (at `.warning`,
    /// a success whose notes report no failure). An event ``handle(_:)`` leaves out is never
    /// accepted, so it counts nowhere, as a sink's events of names it does not handle.
    package var statistics: DeliveryStatistics { queue.statistics }

    /// The level of an event: terminal events by outcome, a retried attempt `.warning`,
    /// others `.debug`. A call whose answer reported an error under a success status (a note
    /// that reports a failure: an LLM stream that ended with the provider's error event) is a
    /// `.warning`, as an error status is, and so is a WebSocket connection closed with a code
    /// that reports an error (1002 to 2999 but 1005: a protocol error, a server error, ...).
    ///
    /// Rating a success that carries attachments makes their notes, and so derives what they
    /// hold: call it off the request's task.
    ///
    /// - Parameter event: The event to rate.
    /// - Returns: How important the event is.
    public static func level(of event: HTTPEvent) -> Level {
        let level = outcomeLevel(of: event)
        guard level == .info, !event.attachments.isEmpty else { return level }
        return Self.level(of: event, notes: notes(of: event))
    }

    /// The level of `event` whose attachments' notes are `notes`: its outcome's, raised from
    /// `.info` to `.warning` when a note reports a failure.
    static func level(of event: HTTPEvent, notes: [HTTPExchangeNote]) -> Level {
        let level = outcomeLevel(of: event)
        return level == .info && notes.contains(where: \.reportsFailure) ? .warning : level
    }

    /// The level of an event by its name and status, before its notes: a success without an
    /// error status is `.info`, the one level a note can raise.
    static func outcomeLevel(of event: HTTPEvent) -> Level {
        switch event.name {
        case .requestFailed: .error
        case .requestCancelled, .requestRetried: .warning
        case .requestSucceeded where event.webSocket?.close.map({ isErrorClose($0.code) }) == true: .warning
        case .requestSucceeded: HTTPResponse.Status.Kind(code: event.statusCode ?? 0).isError ? .warning : .info
        default: .debug
        }
    }
}
