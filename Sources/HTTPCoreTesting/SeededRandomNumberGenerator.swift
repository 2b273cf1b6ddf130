/// A small seeded random number generator (SplitMix64): the same seed gives the same numbers
/// on every run and platform, so a randomized test that fails can be replayed.
///
/// ```swift
/// var random = SeededRandomNumberGenerator(seed: 42)
/// let delay = Double.random(in: 0..<1, using: &random)
/// ```
package struct SeededRandomNumberGenerator: RandomNumberGenerator, Sendable {
    private var state: UInt64

    /// Creates a generator; equal seeds give equal sequences.
    package init(seed: UInt64) {
        state = seed
    }

    /// The next 64 random bits.
    package mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var value = state
        value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
        value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
        return value ^ (value >> 31)
    }

    /// A number in `0..<bound` (slightly biased for huge bounds, which tests do not use).
    package mutating func next(below bound: Int) -> Int {
        Int(next() % UInt64(max(1, bound)))
    }
}
