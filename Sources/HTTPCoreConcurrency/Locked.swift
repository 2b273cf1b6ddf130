#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A value guarded by a lock, shared by the package's targets.
///
/// One allocation holds both the value and the lock (a `pthread_mutex_t`, or an
/// `os_unfair_lock` on Apple platforms), tail-allocated in a `ManagedBuffer` as SwiftNIO's
/// `NIOLock` does, so the lock's address never moves. `Foundation.NSLock` would cost two more
/// allocations on Linux (the object and its mutex), and records are made per event.
///
/// A struct around that one reference: copies share the value and the lock.
///
/// Inlinable, so that each target that uses it gets it specialized for its value: the
/// compiler does not specialize a `package` generic's code in another module otherwise, and
/// every event and every request goes through one (checked with Swift 6.3: the dispatcher's
/// `emit` took three times as long).
@usableFromInline
package struct Locked<Value>: @unchecked Sendable {
    @usableFromInline let storage: LockedStorage<Value>

    /// Guards `value`.
    @inlinable
    package init(_ value: Value) {
        storage = LockedStorage.make(value)
    }

    /// Runs `body` with exclusive access to the value.
    @inlinable
    @discardableResult
    package func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        try storage.withUnsafeMutablePointers { value, lock in
            LockPrimitive.lock(lock)
            defer { LockPrimitive.unlock(lock) }
            return try body(&value.pointee)
        }
    }
}

/// The value (the header) and the lock (the one element) of a ``Locked``, in one allocation.
@usableFromInline
final class LockedStorage<Value>: ManagedBuffer<Value, LockPrimitive.Lock> {
    /// A storage holding `value`, its lock initialised.
    @inlinable
    static func make(_ value: Value) -> LockedStorage {
        let buffer = create(minimumCapacity: 1) { _ in value }
        let storage = unsafeDowncast(buffer, to: LockedStorage.self)
        storage.withUnsafeMutablePointerToElements { LockPrimitive.initialize($0) }
        return storage
    }

    /// Destroys the lock; `ManagedBuffer` itself destroys the value, its header.
    @inlinable
    deinit {
        withUnsafeMutablePointerToElements { LockPrimitive.destroy($0) }
    }
}

/// The platform's lowest-cost mutual exclusion lock, used through a stable pointer.
@usableFromInline
enum LockPrimitive {
    #if canImport(Darwin)
    @usableFromInline typealias Lock = os_unfair_lock
    #else
    @usableFromInline typealias Lock = pthread_mutex_t
    #endif

    @inlinable
    static func initialize(_ lock: UnsafeMutablePointer<Lock>) {
        #if canImport(Darwin)
        lock.initialize(to: os_unfair_lock())
        #else
        var attributes = pthread_mutexattr_t()
        pthread_mutexattr_init(&attributes)
        let error = pthread_mutex_init(lock, &attributes)
        pthread_mutexattr_destroy(&attributes)
        precondition(error == 0, "pthread_mutex_init failed: \(error)")
        #endif
    }

    @inlinable
    static func destroy(_ lock: UnsafeMutablePointer<Lock>) {
        #if canImport(Darwin)
        lock.deinitialize(count: 1)
        #else
        let error = pthread_mutex_destroy(lock)
        precondition(error == 0, "pthread_mutex_destroy failed: \(error)")
        lock.deinitialize(count: 1)
        #endif
    }

    @inlinable
    static func lock(_ lock: UnsafeMutablePointer<Lock>) {
        #if canImport(Darwin)
        os_unfair_lock_lock(lock)
        #else
        let error = pthread_mutex_lock(lock)
        precondition(error == 0, "pthread_mutex_lock failed: \(error)")
        #endif
    }

    @inlinable
    static func unlock(_ lock: UnsafeMutablePointer<Lock>) {
        #if canImport(Darwin)
        os_unfair_lock_unlock(lock)
        #else
        let error = pthread_mutex_unlock(lock)
        precondition(error == 0, "pthread_mutex_unlock failed: \(error)")
        #endif
    }
}
