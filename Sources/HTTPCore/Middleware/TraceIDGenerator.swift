import HTTPCoreConcurrency

/// The random bits of new trace and span ids: xoshiro256** (Blackman and Vigna), seeded once
/// per process from the system's secure source, behind a lock.
///
/// W3C Trace Context asks for ids that are unique and, for the `random` flag, random in their
/// right-most 7 bytes; it does not ask for unpredictable ones, and ids are not secrets. On
/// Linux `SystemRandomNumberGenerator` makes a system call per word (about 0.4 µs), three
/// per new trace on the request path; this generator costs one lock per new trace or span
/// and a few shifts.
enum TraceIDGenerator {
    private static let state = Locked(Xoshiro256StarStar())

    /// The random words of a new trace, drawn under one lock: its trace id's two, not both
    /// zeros, and its span id's one, not zero.
    static func newTraceWords() -> (traceHigh: UInt64, traceLow: UInt64, span: UInt64) {
        state.withLock { random in
            var (high, low) = (random.next(), random.next())
            while high == 0 && low == 0 { (high, low) = (random.next(), random.next()) }
            return (high, low, random.nonZero())
        }
    }

    /// The random word of a new span id, not zero.
    static func newSpanWord() -> UInt64 {
        state.withLock { $0.nonZero() }
    }
}

/// xoshiro256**: 256 bits of state, period 2^256 − 1; never all zeros.
private struct Xoshiro256StarStar {
    private var s0, s1, s2, s3: UInt64

    init() {
        var seed = SystemRandomNumberGenerator()
        repeat {
            (s0, s1, s2, s3) = (seed.next(), seed.next(), seed.next(), seed.next())
        } while s0 | s1 | s2 | s3 == 0
    }

    mutating func next() -> UInt64 {
        let result = rotateLeft(s1 &* 5, by: 7) &* 9
        let t = s1 << 17
        s2 ^= s0
        s3 ^= s1
        s1 ^= s2
        s0 ^= s3
        s2 ^= t
        s3 = rotateLeft(s3, by: 45)
        return result
    }

    /// The next 64 random bits that are not all zeros.
    mutating func nonZero() -> UInt64 {
        var word = next()
        while word == 0 { word = next() }
        return word
    }

    private func rotateLeft(_ value: UInt64, by count: UInt64) -> UInt64 {
        (value << count) | (value >> (64 - count))
    }
}
