extension HTTPError {
    /// The ``HTTPError`` that an `any Error` carries, or `nil` when it is some other error.
    ///
    /// `send` throws only `HTTPError`, but through `some HTTPClient`, a `Task`'s `value` or a
    /// task group it arrives as `any Error`; this is the way back, without a cast per call site. Swift's
    /// `CancellationError` (a task cancelled before it called `send`) counts as ``cancelled``.
    ///
    /// ```swift
    /// let profile = Task { try await client.send(request) }
    /// do {
    ///     let response = try await profile.value
    /// } catch {
    ///     switch HTTPError(error)?.code {
    ///     case .timeout?: retryLater()
    ///     case .cancelled?: return
    ///     case let code?: log("upstream failed: \(code)")
    ///     case nil: throw error    // not from the exchange: a decoding error, say
    ///     }
    /// }
    /// ```
    public init?(_ error: any Error) {
        switch error {
        case let error as HTTPError: self = error
        case is CancellationError: self = .cancelled
        default: return nil
        }
    }
}
