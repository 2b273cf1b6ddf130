import Foundation
import HTTPCore
import HTTPCoreConcurrency

/// Persists the paired endpoint between launches, as opaque bytes.
///
/// The logger encodes and validates what it stores: a store only keeps bytes. Data that
/// cannot be decoded, or that names an invalid endpoint, is ignored and cleared.
///
/// The logger's default store is `UserDefaults` on Apple platforms and a small JSON file
/// elsewhere (see ``DevSeeLoggerConfiguration/endpointStore``). Implement this protocol to
/// keep the endpoint somewhere else, such as the app's own settings.
public protocol DevSeeEndpointStore: Sendable {
    /// Reads what was saved last.
    ///
    /// - Returns: The stored bytes, or `nil` when there are none.
    func load() -> Data?
    /// Replaces the stored bytes.
    ///
    /// - Parameter data: The bytes to keep until the next `save(_:)` or `clear()`.
    func save(_ data: Data)
    /// Removes the stored bytes.
    func clear()
}

/// The default store: `UserDefaults.standard`, under a key namespaced by the app id.
package struct UserDefaultsEndpointStore: DevSeeEndpointStore {
    /// The defaults key, `dev-see.endpoint.<appId>`.
    package let key: String

    /// Creates a store for an app.
    package init(appId: String) {
        key = "dev-see.endpoint.\(appId)"
    }

    /// Reads the key; a value that is not `Data` is returned as `nil` (and later cleared).
    package func load() -> Data? {
        UserDefaults.standard.object(forKey: key) as? Data
    }

    /// Writes the key.
    package func save(_ data: Data) {
        UserDefaults.standard.set(data, forKey: key)
    }

    /// Removes the key.
    package func clear() {
        UserDefaults.standard.removeObject(forKey: key)
    }
}

/// A store in memory, for tests and for apps that must not persist the endpoint.
package final class InMemoryEndpointStore: DevSeeEndpointStore {
    private let storage: Locked<Data?>

    /// Creates a store holding `data`.
    package init(_ data: Data? = nil) {
        storage = Locked(data)
    }

    /// The stored bytes.
    package func load() -> Data? { storage.withLock { $0 } }
    /// Replaces the stored bytes.
    package func save(_ data: Data) { storage.withLock { $0 = data } }
    /// Removes the stored bytes.
    package func clear() { storage.withLock { $0 = nil } }
}
