extension URLSessionTransport {
    /// How many response bytes a ``URLSessionTransport`` accepts, so that a huge or endless
    /// answer cannot exhaust memory. Past a limit the exchange fails with
    /// `HTTPError.Code.responseTooLarge` (`response_too_large`).
    ///
    /// ```swift
    /// var limits = URLSessionTransport.Limits()
    /// limits.maximumStreamedBytes = 8 << 30          // no download over 8 GiB
    /// let client = URLSessionClient(limits: limits)
    /// ```
    public struct Limits: Sendable, Hashable {
        /// The most bytes of a response body the buffered `send(_:)` hands over whole; 64 MiB
        /// by default, as the AsyncHTTPClient transport's.
        ///
        /// A buffered exchange runs as a completion-handler task, which hands over the body
        /// only once it is complete: the body is then refused, but URLSession held it. Tasks
        /// that run through ``URLSessionClient/makeDefaultSession()``'s delegate (requests with
        /// a body, on Linux) stop receiving at the limit. Read a large body with the streaming
        /// `send(_:body:receive:)` instead.
        public var maximumBufferedBytes: Int

        /// The most bytes of a streamed response body (`send(_:body:receive:)`); `nil`, the
        /// default, for no limit: a streamed body is not held whole.
        public var maximumStreamedBytes: Int64?

        /// On Linux, the most bytes of a streamed response received but not yet read; 32 MiB by
        /// default. FoundationNetworking cannot pause a transfer (its `suspend()` then
        /// `resume()` restarts the request from the start), so a reader slower than the
        /// network falls behind; past this many bytes its body fails rather than filling
        /// memory. On Apple platforms a slow reader suspends the task instead and this is
        /// unused.
        public var maximumUnreadBytes: Int

        /// Limits with the defaults: 64 MiB buffered, streamed bodies unlimited, 32 MiB unread.
        ///
        /// - Parameters:
        ///   - maximumBufferedBytes: The most bytes of a body the buffered `send(_:)` hands over.
        ///   - maximumStreamedBytes: The most bytes of a streamed body; `nil` for no limit.
        ///   - maximumUnreadBytes: On Linux, the most bytes of a streamed body received but not
        ///     yet read.
        public init(maximumBufferedBytes: Int = 64 << 20, maximumStreamedBytes: Int64? = nil, maximumUnreadBytes: Int = 32 << 20) {
            self.maximumBufferedBytes = maximumBufferedBytes
            self.maximumStreamedBytes = maximumStreamedBytes
            self.maximumUnreadBytes = maximumUnreadBytes
        }
    }
}
