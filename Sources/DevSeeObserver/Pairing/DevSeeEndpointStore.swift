import Foundation
import HTTPCore
import HTTPCoreConcurrency

/// Persists the paired endpoint between launches, as opaque bytes.
///
/// The logger encodes and validates what it stores: a store only keeps bytes. Data that
/// cannot be decoded, or that names an invalid endpoint, is ignored and cleared.
public protocol DevSeeEndpointStore: Sendable {
    /// The stored bytes, or `nil` when none.
    func load() -> Data?
    /// Replaces the stored bytes.
    func save(_ data: Data)
    /// Removes the stored bytes.
    func clear()
}

/// The default store: `UserDefaults.standard`, under a key namespaced by the app id.
public struct UserDefaultsEndpointStore: DevSeeEndpointStore {
    /// The defaults key, `dev-see.endpoint.<appId>`.
    public let key: String

    /// Creates a store for an app.
    public init(appId: String) {
        key = "dev-see.endpoint.\(appId)"
    }

    /// Reads the key; a value that is not `Data` is returned as `nil` (and later cleared).
    public func load() -> Data? {
        UserDefaults.standard.object(forKey: key) as? Data
    }

    /// Writes the key.
    public func save(_ data: Data) {
        UserDefaults.standard.set(data, forKey: key)
    }

    /// Removes the key.
    public func clear() {
        UserDefaults.standard.removeObject(forKey: key)
    }
}

/// A store in memory, for tests and for apps that must not persist the endpoint.
public final class InMemoryEndpointStore: DevSeeEndpointStore {
    private let storage: Locked<Data?>

    /// Creates a store holding `data`.
    public init(_ data: Data? = nil) {
        storage = Locked(data)
    }

    /// The stored bytes.
    public func load() -> Data? { storage.withLock { $0 } }
    /// Replaces the stored bytes.
    public func save(_ data: Data) { storage.withLock { $0 = data } }
    /// Removes the stored bytes.
    public func clear() { storage.withLock { $0 = nil } }
}
