/// The response body sizes the server answers, chosen by the request's path (`/64`, `/65536`).
enum ResponseSize {
    /// A small API answer: 64 bytes.
    static let small = 64
    /// A large one: 64 KiB.
    static let large = 65_536
    /// Every size the server has a body for.
    static let all = [small, large]

    /// `64 B` or `64 KiB`, for tables.
    static func label(_ bytes: Int) -> String {
        bytes >= 1024 && bytes % 1024 == 0 ? "\(bytes / 1024) KiB" : "\(bytes) B"
    }
}
