import Foundation

/// Persists the paired endpoint in a small file; the default store on Linux, where
/// `UserDefaults` does not outlive the process.
///
/// The file lives under `$XDG_CONFIG_HOME/dev-see/` (or `~/.config/dev-see/`), named after the
/// app id. Writes are atomic (a temporary file renamed into place), so a crash never leaves a
/// half-written file; a file that cannot be read as an endpoint is ignored and removed by the
/// logger, and a file larger than 64 KiB is not read at all.
package struct FileEndpointStore: DevSeeEndpointStore {
    /// The file that holds the endpoint.
    package let fileURL: URL

    /// The largest file read; anything bigger is not an endpoint.
    package static let maximumFileBytes = 64 * 1024

    /// Creates a store in an explicit file.
    package init(fileURL: URL) {
        self.fileURL = fileURL
    }

    /// Creates a store in the default file for an app (see ``defaultFileURL(appId:environment:)``).
    package init(appId: String) {
        self.init(fileURL: Self.defaultFileURL(appId: appId))
    }

    /// `$XDG_CONFIG_HOME/dev-see/endpoint-<appId>.json`, else `$HOME/.config/dev-see/...`,
    /// else the same under the temporary directory. Characters of the app id that cannot be
    /// in a file name become `_`.
    package static func defaultFileURL(
        appId: String,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> URL {
        let base: URL
        if let config = environment["XDG_CONFIG_HOME"], config.hasPrefix("/") {
            base = URL(fileURLWithPath: config, isDirectory: true)
        } else if let home = environment["HOME"], home.hasPrefix("/") {
            base = URL(fileURLWithPath: home, isDirectory: true).appendingPathComponent(".config", isDirectory: true)
        } else {
            base = FileManager.default.temporaryDirectory
        }
        let safeName = String(appId.unicodeScalars.map { scalar -> Character in
            let isSafe = scalar.isASCII && (CharacterSet.alphanumerics.contains(scalar) || ".-_".unicodeScalars.contains(scalar))
            return isSafe ? Character(scalar) : "_"
        }.prefix(200))
        let name = safeName.isEmpty || safeName.allSatisfy({ $0 == "." }) ? "default" : safeName
        return base.appendingPathComponent("dev-see", isDirectory: true).appendingPathComponent("endpoint-\(name).json")
    }

    /// The file's bytes; `nil` when it is missing, unreadable or too large.
    package func load() -> Data? {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: fileURL.path),
            let size = attributes[.size] as? NSNumber, size.intValue <= Self.maximumFileBytes
        else { return FileManager.default.fileExists(atPath: fileURL.path) ? Data() : nil }
        return try? Data(contentsOf: fileURL)
    }

    /// Writes the bytes atomically, creating the folder when needed; a failure (read-only
    /// home, full disk) leaves pairing in memory only.
    package func save(_ data: Data) {
        try? FileManager.default.createDirectory(at: fileURL.deletingLastPathComponent(), withIntermediateDirectories: true)
        try? data.write(to: fileURL, options: .atomic)
    }

    /// Removes the file.
    package func clear() {
        try? FileManager.default.removeItem(at: fileURL)
    }
}
