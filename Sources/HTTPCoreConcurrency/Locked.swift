import Foundation

/// A value guarded by a lock, shared by the package's targets.
///
/// `@unchecked Sendable` is sound because every access to `value` goes through `lock`.
///
/// Inlinable, so that each target that uses it gets it specialized for its value: the
/// compiler does not specialize a `package` generic's code in another module otherwise, and
/// every event and every request goes through one (checked with Swift 6.3: the dispatcher's
/// `emit` took three times as long).
@usableFromInline
package final class Locked<Value>: @unchecked Sendable {
    @usableFromInline let lock = NSLock()
    @usableFromInline var value: Value

    /// Guards `value`.
    @inlinable
    package init(_ value: Value) {
        self.value = value
    }

    /// Runs `body` with exclusive access to the value.
    @inlinable
    @discardableResult
    package func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}

extension Locked {
    /// The cached value, computed by `compute` outside the lock on first use. Two first
    /// readers may both compute; the values are equal, and one is kept.
    @inlinable
    package func value<Wrapped>(orCompute compute: () -> Wrapped) -> Wrapped where Value == Wrapped? {
        if let cached = withLock({ $0 }) { return cached }
        let computed = compute()
        return withLock { cache in
            if let cached = cache { return cached }
            cache = computed
            return computed
        }
    }
}
