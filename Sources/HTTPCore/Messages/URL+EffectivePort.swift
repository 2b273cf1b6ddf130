import Foundation

extension URL {
    /// The port a connection to this URL goes to: the explicit one, else 80 for `http` and
    /// `ws` and 443 for `https` and `wss`; `nil` for other schemes without one.
    package var effectivePort: Int? {
        if let port { return port }
        switch scheme?.lowercased() {
        case "http", "ws": return 80
        case "https", "wss": return 443
        default: return nil
        }
    }
}
