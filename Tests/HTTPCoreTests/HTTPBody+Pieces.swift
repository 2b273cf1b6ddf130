import HTTPCore

extension HTTPBody {
    /// A one-pass body of `text`'s UTF-8 bytes in chunks of `size` bytes (the last shorter),
    /// for tests of readers that must not care where the chunks break.
    static func pieces(of text: String, size: Int) -> HTTPBody {
        let bytes = Array(text.utf8)
        let chunks = stride(from: 0, to: bytes.count, by: size).map { bytes[$0..<Swift.min(bytes.count, $0 + size)] }
        return HTTPBody(AsyncStream { continuation in
            chunks.forEach { continuation.yield($0) }
            continuation.finish()
        }, length: .unknown)
    }
}
