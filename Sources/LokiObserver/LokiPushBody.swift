import HTTPCore
import HTTPCoreText

/// Builds the JSON body of `POST /loki/api/v1/push`:
/// `{"streams":[{"stream":{labels},"values":[["<ns>","<line>"],...]},...]}`.
///
/// Entries are grouped by stream (streams in order of first appearance) and sorted by time
/// within each stream, because Loki refuses entries older than the newest it has for a
/// stream (unless it runs with `unordered_writes`). Times within a stream are made strictly
/// increasing: an entry not newer than the one before it (in this batch or the last pushed)
/// is moved to 1 ns after it, so a line that finished a moment before one already pushed is
/// kept rather than refused, and two equal lines logged at once are not merged.
struct LokiPushBody {
    /// The newest timestamp pushed per stream, bounded: past `maximumStreams` it starts over.
    private(set) var lastTimestamps: [String: Int64] = [:]
    static let maximumStreams = 10_000

    mutating func encode(_ entries: [LokiEntry]) -> [UInt8] {
        var order: [String] = []
        var streams: [String: [LokiEntry]] = [:]
        for entry in entries {
            if streams[entry.stream] == nil { order.append(entry.stream) }
            streams[entry.stream, default: []].append(entry)
        }
        if lastTimestamps.count + order.count > Self.maximumStreams { lastTimestamps = [:] }
        var body = JSONWriter(reservingCapacity: entries.reduce(64) { $0 + $1.stream.utf8.count + $1.line.utf8.count + 40 })
        body.beginObject()
        body.key("streams")
        body.beginArray()
        for stream in order {
            body.beginObject()
            body.key("stream")
            body.raw(stream)
            body.key("values")
            body.beginArray()
            // Stable: entries with equal times keep the order they were logged in.
            let sorted = streams[stream]!.enumerated().sorted { ($0.element.timestamp, $0.offset) < ($1.element.timestamp, $1.offset) }
            var last = lastTimestamps[stream] ?? .min
            for entry in sorted.map(\.element) {
                let timestamp = entry.timestamp > last ? entry.timestamp : last &+ 1
                last = timestamp
                body.beginArray()
                body.string(String(timestamp))
                body.string(entry.line)
                body.endArray()
            }
            lastTimestamps[stream] = last
            body.endArray()
            body.endObject()
        }
        body.endArray()
        body.endObject()
        return body.bytes
    }
}
