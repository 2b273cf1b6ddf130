/// The verdicts on the last four names read from one byte buffer, kept as ranges of it (no
/// copy): text that repeats its names (a JSON log, a query of many pairs) judges each once.
struct RecentVerdicts {
    private var entries: [(range: Range<Int>, rule: ValueRule)] = []
    private var next = 0

    private static var capacity: Int { 4 }

    /// The verdict on `bytes[range]`: remembered when one of the last four names had the same
    /// bytes, otherwise `judge`'s, then remembered.
    mutating func verdict(on range: Range<Int>, in bytes: [UInt8], judge: (ArraySlice<UInt8>) -> ValueRule) -> ValueRule {
        let name = bytes[range]
        for entry in entries where entry.range.count == range.count && bytes[entry.range].elementsEqual(name) {
            return entry.rule
        }
        let rule = judge(name)
        if entries.count < Self.capacity {
            entries.append((range, rule))
        } else {
            entries[next] = (range, rule)
            next = (next + 1) % Self.capacity
        }
        return rule
    }
}
