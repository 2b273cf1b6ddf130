import Foundation
import HTTPCore
import HTTPCoreText

/// Makes a ``LokiLogger``'s lines: their streams from the logger's labels, their text in its
/// ``LokiLineFormat``, cut at ``LokiLogger/maximumLineBytes``.
///
/// Plain log lines are made when they are logged; the lines of ``LokiObserver``'s events
/// when their batch is built, on the logger's worker (see `LokiLineBuilder+Event.swift`).
struct LokiLineBuilder: Sendable {
    /// The labels of every stream: `app`, `environment` and the configured extra labels.
    let baseLabels: [(name: String, value: String)]
    let lineFormat: LokiLineFormat
    /// The logger's redactor: plain messages and their metadata pass it. The fields of observed
    /// events are as their client's policy exposed them, redacted there.
    let redactor: Redactor
    /// ``LokiConfiguration/maxMessageLinesPerExchange``.
    let maxMessageLinesPerExchange: Int
    /// The stream of plain log lines at each level, built once.
    private let logStreams: [LokiLevel: String]

    init(configuration: LokiConfiguration) {
        var labels: [(name: String, value: String)] = [("app", configuration.app)]
        if let environment = configuration.environment { labels.append(("environment", environment)) }
        for (name, value) in configuration.extraLabels.sorted(by: { $0.key < $1.key }) {
            labels.append((LokiLabelName.sanitized(name), value))
        }
        baseLabels = labels
        lineFormat = configuration.lineFormat
        redactor = configuration.redactor
        maxMessageLinesPerExchange = configuration.maxMessageLinesPerExchange
        logStreams = Dictionary(uniqueKeysWithValues: LokiLevel.allCases.map { level in
            (level, LokiEntry.stream(labels + [("level", level.rawValue), ("kind", "log")]))
        })
    }

    /// The line of a plain log message at `level`, redacted; metadata keys become its keys, a
    /// `msg` key `metadata.msg` (see ``appendMetadata(_:to:)``).
    func logEntry(_ level: LokiLevel, _ message: String, metadata: [String: String], date: Date) -> LokiEntry {
        var fields: [(key: String, value: String)] = [("msg", redactor.redactedText(message))]
        Self.appendMetadata(redactor.redactedMetadata(metadata).sorted(by: { $0.key < $1.key }), to: &fields)
        return entry(stream: logStreams[level]!, fields: fields, date: date)
    }

    /// The lines of a batch, in its order: made lines as they are, events' lines made now.
    func entries(_ items: [LokiPendingLine]) -> [LokiEntry] {
        items.compactMap { item in
            switch item {
            case .line(let entry): entry
            case .event(let event): entry(for: event)
            }
        }
    }

    /// A line in the stream of the base labels, `level`, `kind` and `extraLabels`.
    func entry(level: LokiLevel, kind: String, extraLabels: [(name: String, value: String)], fields: [(key: String, value: String)], date: Date) -> LokiEntry {
        entry(stream: LokiEntry.stream(baseLabels + [("level", level.rawValue), ("kind", kind)] + extraLabels), fields: fields, date: date)
    }

    private func entry(stream: String, fields: [(key: String, value: String)], date: Date) -> LokiEntry {
        LokiEntry(stream: stream, date: date, line: Self.capped(lineFormat.line(fields)))
    }

    private static func capped(_ line: String) -> String {
        let count = line.utf8.count
        guard count > LokiLogger.maximumLineBytes else { return line }
        let kept = UTF8Text.prefix(line, maxBytes: LokiLogger.maximumLineBytes)
        return kept + TruncationMarker.omitting(count - kept.utf8.count)
    }
}
