extension ConsoleObserver {
    /// How an exchange is laid out.
    public enum Format: Sendable, Hashable {
        /// One line per exchange: method, URL, status, duration, sizes, and for an LLM call
        /// its summary in brackets: `[LLM: gpt-4o-mini · 25 in, 15 out tokens · stop]`.
        case line
        /// `[REQUEST]` and `[RESPONSE]` blocks with headers and bodies, per exchange and per
        /// retried attempt; after redirects `[REDIRECTED]` with the route comes first, and an
        /// outcome other than the response itself comes last: `[FAILED] after status 200: …`,
        /// `[CANCELLED] after status 200`, `[RETRIED] attempt 1, another followed`,
        /// `[ATTEMPT 2] the last`. An LLM call ends with `[LLM] ` and its summary: model,
        /// tokens in and out, time to the first chunk, finish.
        case blocks
    }

    /// How bodies are shown in ``Format/blocks``.
    public enum BodyRendering: Sendable, Hashable {
        /// Only the size.
        case sizeOnly
        /// As UTF-8 text (binary bodies by size).
        case text
        /// JSON pretty-printed, other text as is.
        case prettyJSON
    }
}
