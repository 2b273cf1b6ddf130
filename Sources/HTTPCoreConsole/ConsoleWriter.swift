import Foundation
import HTTPCore
import HTTPCoreObservation

#if canImport(os)
import os
#endif

/// What a ``ConsoleObserver``'s delivery runs on its serial queue: makes each event's notes
/// once, rates the event with them, and makes and writes its text when it is at least
/// `minimumLevel`. It may block (a full pipe, a paused terminal); the queue it runs on is
/// the engine's, never the request's task.
struct ConsoleWriter: HTTPObserver {
    /// The observer's minimum: ``ConsoleObserver/handle(_:)`` keeps, at `.warning`, a success
    /// whose notes it did not make, and the writer drops it unless a note reports a failure.
    let minimumLevel: ConsoleObserver.Level
    let format: ConsoleObserver.Format
    let body: ConsoleObserver.BodyRendering
    let write: @Sendable (String) -> Void

    func handle(_ event: HTTPEvent) {
        _ = writeText(for: event)
    }

    /// Writes the event's text when, rated with its notes, it is at least `minimumLevel`;
    /// returns whether it did, so that the delivery counts an event left out as skipped, not
    /// delivered.
    func writeText(for event: HTTPEvent) -> Bool {
        let notes = ConsoleObserver.notes(of: event)
        guard ConsoleObserver.level(of: event, notes: notes) >= minimumLevel else { return false }
        write(ConsoleObserver.text(for: event, format: format, body: body, notes: notes))
        return true
    }

    /// Standard error, or on Apple platforms outside a terminal the unified log.
    static let platformOutput: @Sendable (String) -> Void = {
        let standardError: @Sendable (String) -> Void = { text in FileHandle.standardError.write(Data((text + "\n").utf8)) }
        #if canImport(os)
        // A command-line tool or a server run from a terminal reads standard error; an app's
        // lines go to the unified log, where URLs and bodies stay private unless a debugger or
        // a logging profile reveals them.
        guard isatty(STDERR_FILENO) != 1 else { return standardError }
        let logger = Logger(subsystem: "HTTPCore", category: "http")
        return { text in logger.log("\(text, privacy: .private)") }
        #else
        return standardError
        #endif
    }()
}
