extension ConsoleObserver {
    /// How an exchange is laid out.
    public enum Format: Sendable, Hashable {
        /// One line per exchange: method, URL, status, duration, sizes, then each note of what
        /// interpreters derived from it, its name and summary in brackets (an LLM call's
        /// `[genAI: gpt-4o-mini · 25 in, 15 out tokens · stop]`).
        case line
        /// `[REQUEST]` and `[RESPONSE]` blocks with headers and bodies, per exchange and per
        /// retried attempt; after redirects `[REDIRECTED]` with the route comes first, and an
        /// outcome other than the response itself comes last: `[FAILED] after status 200: …`,
        /// `[CANCELLED] after status 200`, `[RETRIED] attempt 1, another followed`,
        /// `[ATTEMPT 2] the last`. Each note of what interpreters derived ends it with a line of
        /// its name in brackets and its summary (an LLM call's `[genAI] ` with its model,
        /// tokens in and out, time to the first chunk, finish).
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
