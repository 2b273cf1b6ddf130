/// The verdicts on the last four names read from one byte buffer, kept as ranges of it (no
/// copy): text that repeats its names (a JSON log, a query of many pairs) judges each once.
struct RecentVerdicts {
    private var entries: [(range: Range<Int>, masks: Bool)] = []
    private var next = 0

    private static var capacity: Int { 4 }

    /// The verdict on `bytes[range]`: remembered when one of the last four names had the same
    /// bytes, otherwise `judge`'s, then remembered.
    mutating func verdict(on range: Range<Int>, in bytes: [UInt8], judge: (ArraySlice<UInt8>) -> Bool) -> Bool {
        let name = bytes[range]
        for entry in entries where entry.range.count == range.count && bytes[entry.range].elementsEqual(name) {
            return entry.masks
        }
        let masks = judge(name)
        if entries.count < Self.capacity {
            entries.append((range, masks))
        } else {
            entries[next] = (range, masks)
            next = (next + 1) % Self.capacity
        }
        return masks
    }
}
