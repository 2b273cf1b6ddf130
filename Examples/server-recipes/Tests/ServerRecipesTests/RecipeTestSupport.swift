import Foundation
import InMemoryTracing
import Logging
import Tracing

/// The process's tracer, bootstrapped once: the frameworks' tracing middlewares read the
/// global one.
enum RecipeTracing {
    static let tracer: InMemoryTracer = {
        let tracer = InMemoryTracer()
        InstrumentationSystem.bootstrap(tracer)
        return tracer
    }()
}

/// Log lines a ``RecordingLogHandler`` kept.
final class LogLines: @unchecked Sendable {   // safe: `stored` is only touched under `lock`
    typealias Line = (message: String, metadata: Logger.Metadata)
    private let lock = NSLock()
    private var stored: [Line] = []

    func append(_ line: Line) { lock.withLock { stored.append(line) } }
    var all: [Line] { lock.withLock { stored } }
}

/// A log handler that keeps every line.
struct RecordingLogHandler: LogHandler {
    let lines: LogLines
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        lines.append(("\(event.message)", metadata.merging(event.metadata ?? [:]) { $1 }))
    }
}
