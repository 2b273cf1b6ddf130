import Foundation

/// Where a dev-see server listens: scheme, host and port.
public struct DevSeeEndpoint: Sendable, Hashable, Codable, CustomStringConvertible {
    /// `http` or `https`.
    package var scheme: String
    /// An IPv4 or IPv6 address (without brackets) or a host name.
    package var host: String
    /// The TCP port, 1...65535.
    package var port: Int

    /// Creates an endpoint.
    package init(scheme: String = "http", host: String, port: Int) {
        self.scheme = scheme
        self.host = host
        self.port = port
    }

    /// The endpoint of a server URL; `nil` when the URL has no valid host or port.
    package init?(url: URL) {
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
            let rawHost = url.host, !rawHost.isEmpty
        else { return nil }
        let host = rawHost.trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        let port = url.effectivePort ?? 80
        guard (1...65535).contains(port), HostKind(host) != nil else { return nil }
        self.init(scheme: scheme, host: host, port: port)
    }

    /// The URL of `path` on this server, with IPv6 hosts in brackets; characters a host
    /// cannot hold are percent-encoded, so any endpoint gives a URL.
    package func url(path: String) -> URL {
        let isIPv6 = host.contains(":")
        let allowed = isIPv6 ? CharacterSet(charactersIn: "0123456789abcdefABCDEF:.") : .urlHostAllowed
        let encodedHost = host.addingPercentEncoding(withAllowedCharacters: allowed) ?? "127.0.0.1"
        let authority = isIPv6 ? "[\(encodedHost)]" : encodedHost
        let encodedPath = (path.hasPrefix("/") ? path : "/" + path).addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? "/"
        return URL(string: "\(scheme)://\(authority):\(port)\(encodedPath)") ?? DevSeeLoggerConfiguration.defaultServerURL
    }

    /// `scheme://host:port`.
    public var description: String {
        "\(scheme)://\(host.contains(":") ? "[\(host)]" : host):\(port)"
    }
}

/// What a URL opened by the app did to a ``DevSeeLogger``'s endpoint.
package enum DevSeeConnectionResult: Sendable, Hashable {
    /// The URL was a valid connection link; logs now go to this endpoint.
    case connected(DevSeeEndpoint)
    /// The URL is not a dev-see connection link; nothing changed.
    case ignored
    /// The URL is a dev-see link that cannot be used; nothing changed.
    case failed(reason: String)
}
