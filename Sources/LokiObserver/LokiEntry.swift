import Foundation

/// One line waiting for a push: its stream, its time and its text.
struct LokiEntry: Sendable {
    /// The stream's labels as the JSON object Loki receives, names sorted: both the key that
    /// groups entries into streams and the text written into the push body.
    let stream: String
    /// Nanoseconds since 1970.
    let timestamp: Int64
    let line: String

    init(stream: String, date: Date, line: String) {
        self.stream = stream
        timestamp = Int64((date.timeIntervalSince1970 * 1_000_000_000).rounded())
        self.line = line
    }

    init(labels: [(name: String, value: String)], date: Date, line: String) {
        self.init(stream: Self.stream(labels), date: date, line: line)
    }

    /// The labels as a JSON object, names sorted, the first of repeated names kept.
    static func stream(_ labels: [(name: String, value: String)]) -> String {
        var seen = Set<String>()
        let unique = labels.filter { seen.insert($0.name).inserted }.sorted { $0.name < $1.name }
        // The same JSON object as a line in the JSON format.
        return LokiLineFormat.json.line(unique.map { (key: $0.name, value: $0.value) })
    }

    /// What the entry keeps alive while it waits, for the buffer's byte limit.
    var byteCost: Int { 96 + stream.utf8.count + line.utf8.count }
}
