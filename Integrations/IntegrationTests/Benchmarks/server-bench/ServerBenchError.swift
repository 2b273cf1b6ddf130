/// The benchmark could not set up or run what it measures; the message says what failed.
struct ServerBenchError: Error, CustomStringConvertible {
    /// What failed.
    let description: String

    /// An error saying `description`.
    init(_ description: String) {
        self.description = description
    }
}
