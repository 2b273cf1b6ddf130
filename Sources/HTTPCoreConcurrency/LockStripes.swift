/// A fixed table of process-wide locks, one picked per object from its address, for objects
/// that keep a little state for several threads and are made too often to pay for a lock of
/// their own: the request and response records, three or more per exchange, whose redacted
/// fields are computed on first read by whichever observer reads them first.
///
/// A record with a ``Locked`` cache is two allocations; with its cache in a stored property
/// guarded here, one. Two objects may share a lock, so a body must not take another stripe's
/// lock (it could be the same one) and must be short: read or store a field, never compute it
/// (``field(_:of:orCompute:)`` computes outside the lock).
///
/// Its code is inlinable, as ``Locked``'s is, so that it is specialized where it is used.
@usableFromInline
package enum LockStripes {
    /// How many locks the table holds: a power of two, far more than the threads that read
    /// records at once.
    @usableFromInline static let count = 64

    /// The table: 64 locks in one allocation, made on first use and kept for the process.
    /// Shared without a check: its only state is the locks, used only by ``withLock(for:_:)``.
    @usableFromInline nonisolated(unsafe) static let table = LockStripeTable.make(count: count)

    /// Runs `body` holding the lock of `object`'s stripe.
    @inlinable
    package static func withLock<Result>(for object: AnyObject, _ body: () throws -> Result) rethrows -> Result {
        // Objects are at least 16-byte aligned: the bits above those pick the stripe.
        let stripe = Int((UInt(bitPattern: ObjectIdentifier(object)) >> 4) & UInt(count - 1))
        return try table.withUnsafeMutablePointerToElements { locks in
            LockPrimitive.lock(locks + stripe)
            defer { LockPrimitive.unlock(locks + stripe) }
            return try body()
        }
    }

    /// The cached field of `owner` at `keyPath`, computed by `compute` outside the lock on
    /// first use and stored unless another thread stored it first (then that value is
    /// returned, so every reader sees one value). The field must be read and written only
    /// through this table.
    @inlinable
    package static func field<Owner: AnyObject, Field>(
        _ keyPath: ReferenceWritableKeyPath<Owner, Field?>,
        of owner: Owner,
        orCompute compute: () -> Field
    ) -> Field {
        if let cached = withLock(for: owner, { owner[keyPath: keyPath] }) { return cached }
        let computed = compute()
        return withLock(for: owner) {
            if let cached = owner[keyPath: keyPath] { return cached }
            owner[keyPath: keyPath] = computed
            return computed
        }
    }
}

/// The locks of ``LockStripes``, initialized once, in one allocation; never freed.
@usableFromInline
final class LockStripeTable: ManagedBuffer<Void, LockPrimitive.Lock> {
    /// A table of `count` initialized locks.
    @usableFromInline
    static func make(count: Int) -> LockStripeTable {
        let table = unsafeDowncast(create(minimumCapacity: count) { _ in () }, to: LockStripeTable.self)
        table.withUnsafeMutablePointerToElements { locks in
            for index in 0..<count { LockPrimitive.initialize(locks + index) }
        }
        return table
    }
}
