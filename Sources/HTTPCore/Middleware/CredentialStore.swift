import Foundation

/// The credential shared by the requests of one ``AuthorizationMiddleware``: fetched once,
/// refreshed once per rejected value, however many requests ask at the same time.
actor CredentialStore {
    private let fetch: @Sendable () async throws -> String
    private let refresh: @Sendable (String) async throws -> String
    private var credential: String?
    private let asked: @Sendable () -> Void
    private var pending: Task<String, any Error>?

    /// Creates the store; `asked` is called at the start of each ``current()``, in the same
    /// actor step that picks the pending, cached or a new credential.
    init(
        fetch: @escaping @Sendable () async throws -> String,
        refresh: @escaping @Sendable (String) async throws -> String,
        asked: @escaping @Sendable () -> Void = {}
    ) {
        self.fetch = fetch
        self.refresh = refresh
        self.asked = asked
    }

    /// The credential being fetched or refreshed (a request that starts during a refresh
    /// waits for it rather than send a credential known to be refused), else the cached one,
    /// else a newly fetched one.
    func current() async throws -> String {
        asked()
        if let pending { return try await pending.value }
        if let credential { return credential }
        return try await run(fetch)
    }

    /// A credential other than `rejected`: the one another request already refreshed to,
    /// the refresh in flight, or a new refresh.
    func refreshed(rejecting rejected: String) async throws -> String {
        if let credential, credential != rejected { return credential }
        if let pending { return try await pending.value }
        let refresh = refresh
        return try await run { try await refresh(rejected) }
    }

    /// Runs a fetch or refresh as the pending one. The task itself, isolated to this actor,
    /// stores the value and clears `pending` before anyone awaiting it resumes, so a request
    /// refused right after never finds the old task still pending and is handed its
    /// credential again (it happened with 100 concurrent requests on two busy cores).
    private func run(_ operation: @escaping @Sendable () async throws -> String) async throws -> String {
        let task = Task { () async throws -> String in
            defer { self.pending = nil }
            let value = try await operation()
            self.credential = value
            return value
        }
        pending = task
        return try await task.value
    }
}
