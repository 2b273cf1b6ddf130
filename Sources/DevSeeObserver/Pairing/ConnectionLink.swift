import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Parses and vets dev-see connection links:
/// `dev-see-<bundleId>://connect?server_ip=<host>&server_port=<port>`.
enum ConnectionLink {
    enum Outcome: Equatable {
        case notALink
        case endpoint(DevSeeEndpoint)
        case invalid(String)
    }

    static func parse(_ url: URL, allowsPublicHosts: Bool) -> Outcome {
        guard let scheme = url.scheme, scheme.lowercased().hasPrefix("dev-see-") else { return .notALink }
        let bundleID = scheme.dropFirst("dev-see-".count)
        guard isValidBundleID(bundleID) else { return .invalid("the link's bundle id '\(bundleID)' is not valid") }
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: false) else {
            return .invalid("the link cannot be read as a URL")
        }
        guard components.host?.lowercased() == "connect" else {
            return .invalid("the link's action is '\(components.host ?? "")', expected 'connect'")
        }
        let items = components.queryItems ?? []
        guard let rawHost = items.first(where: { $0.name == "server_ip" })?.value, !rawHost.isEmpty else {
            return .invalid("the link has no server_ip")
        }
        guard let rawPort = items.first(where: { $0.name == "server_port" })?.value, !rawPort.isEmpty else {
            return .invalid("the link has no server_port")
        }
        guard rawPort.utf8.count <= 5, rawPort.allSatisfy(\.isASCII), rawPort.allSatisfy(\.isNumber),
            let port = Int(rawPort), (1...65535).contains(port)
        else {
            return .invalid("server_port '\(rawPort)' is not a port from 1 to 65535")
        }
        let host = rawHost.hasPrefix("[") && rawHost.hasSuffix("]") ? String(rawHost.dropFirst().dropLast()) : rawHost
        guard let kind = HostKind(host) else {
            return .invalid("server_ip '\(rawHost)' is not an IP address or host name")
        }
        guard kind.isLocal || allowsPublicHosts else {
            return .invalid(
                "server_ip '\(host)' is a public host; only loopback, private, link-local and .local hosts are "
                    + "accepted unless the configuration allows public hosts"
            )
        }
        return .endpoint(DevSeeEndpoint(host: host, port: port))
    }

    /// Whether the endpoint may be used, by the same rules as a link (for stored endpoints).
    static func isAcceptable(_ endpoint: DevSeeEndpoint, allowsPublicHosts: Bool) -> Bool {
        guard (1...65535).contains(endpoint.port), endpoint.scheme == "http" || endpoint.scheme == "https",
            let kind = HostKind(endpoint.host)
        else { return false }
        return kind.isLocal || allowsPublicHosts
    }

    private static func isValidBundleID(_ id: Substring) -> Bool {
        // ^[A-Za-z0-9]+(?:[.-][A-Za-z0-9]+)*$
        guard let first = id.first, let last = id.last, first.isASCIIAlphanumeric, last.isASCIIAlphanumeric else {
            return false
        }
        var previousWasSeparator = false
        for character in id {
            if character == "." || character == "-" {
                if previousWasSeparator { return false }
                previousWasSeparator = true
            } else if character.isASCIIAlphanumeric {
                previousWasSeparator = false
            } else {
                return false
            }
        }
        return true
    }
}

/// What kind of host a string names.
enum HostKind {
    case ipv4(UInt32)
    case ipv6([UInt8])
    case name(String)

    /// `nil` when the string is neither an IP address nor a valid host name.
    init?(_ host: String) {
        if let address = Self.parseIPv4(host) {
            self = .ipv4(address)
        } else if host.contains(":") {
            var address = in6_addr()
            guard inet_pton(AF_INET6, host, &address) == 1 else { return nil }
            self = .ipv6(withUnsafeBytes(of: &address) { Array($0) })
        } else if Self.isHostName(host) {
            self = .name(host.lowercased())
        } else {
            return nil
        }
    }

    /// Loopback, private (RFC 1918, IPv6 unique-local), link-local, `localhost` or `.local`.
    var isLocal: Bool {
        switch self {
        case .ipv4(let address):
            let a = address >> 24, b = (address >> 16) & 0xFF
            return a == 127 || a == 10 || (a == 172 && (16...31).contains(b)) || (a == 192 && b == 168)
                || (a == 169 && b == 254)
        case .ipv6(let bytes):
            let isLoopback = bytes.dropLast().allSatisfy { $0 == 0 } && bytes.last == 1
            let isUniqueLocal = bytes[0] & 0xFE == 0xFC
            let isLinkLocal = bytes[0] == 0xFE && bytes[1] & 0xC0 == 0x80
            return isLoopback || isUniqueLocal || isLinkLocal
        case .name(let name):
            return name == "localhost" || name.hasSuffix(".local") || name.hasSuffix(".localhost")
        }
    }

    private static func parseIPv4(_ host: String) -> UInt32? {
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4 else { return nil }
        var address: UInt32 = 0
        for part in parts {
            // A leading zero would be octal to inet_aton and curl (010 is 8): refuse it.
            guard !part.isEmpty, part.count <= 3, part.allSatisfy({ $0.isASCII && $0.isNumber }),
                part.count == 1 || part.first != "0", let value = UInt32(part), value <= 255
            else { return nil }
            address = address << 8 | value
        }
        return address
    }

    private static func isHostName(_ host: String) -> Bool {
        guard !host.isEmpty, host.utf8.count <= 253 else { return false }
        let labels = host.split(separator: ".", omittingEmptySubsequences: false)
        if labels.allSatisfy({ $0.allSatisfy(\.isNumber) }) { return false }
        return labels.allSatisfy { label in
            !label.isEmpty && label.count <= 63 && label.first != "-" && label.last != "-"
                && label.allSatisfy { $0.isASCIIAlphanumeric || $0 == "-" }
        }
    }
}

extension Character {
    fileprivate var isASCIIAlphanumeric: Bool {
        isASCII && (isLetter || isNumber)
    }
}
