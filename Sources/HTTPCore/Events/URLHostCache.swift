import Foundation
import HTTPCoreConcurrency

/// A URL's host, as Foundation's `URL.host` reads it, parsed on first read: shared by the
/// request records of one exchange whose URL the middlewares left as it was, so their events
/// parse it once, without one record keeping another (and its body) alive.
final class URLHostCache: @unchecked Sendable {
    let url: URL
    /// The host once parsed (`.some(nil)` for a URL without one): read and written only under
    /// ``LockStripes``' lock for this cache, which makes it `@unchecked Sendable`.
    private var parsed: String??

    /// A cache of `url`'s host; `parsed`, the host when it was parsed already.
    init(url: URL, parsed: String?? = nil) {
        self.url = url
        self.parsed = parsed
    }

    /// The host, parsed on the first read.
    var host: String? {
        LockStripes.field(\.parsed, of: self) { url.host }
    }
}
