import NIOConcurrencyHelpers

/// A closed-loop load: `callers` tasks each make one request after another, taking the next
/// from a shared count until `requests` were made, as a server's handlers calling a backend.
enum ClosedLoopLoad {
    /// What a load did.
    struct Outcome: Sendable {
        /// Requests that failed or returned other than the expected bytes.
        var failures = 0
        /// The first failure's description, for the report.
        var firstFailure: String?
    }

    /// Makes `requests` calls of `perform` from `callers` concurrent tasks; a call fails when
    /// it throws or returns other than `expectedBytes`.
    static func run(
        requests: Int,
        callers: Int,
        expectedBytes: Int,
        perform: @escaping @Sendable () async throws -> Int
    ) async -> Outcome {
        let issued = NIOLockedValueBox(0)
        return await withTaskGroup(of: Outcome.self) { group in
            for _ in 0..<min(callers, requests) {
                group.addTask {
                    var outcome = Outcome()
                    while issued.withLockedValue({ count in
                        guard count < requests else { return false }
                        count += 1
                        return true
                    }) {
                        do {
                            let bytes = try await perform()
                            if bytes != expectedBytes {
                                outcome.failures += 1
                                outcome.firstFailure = outcome.firstFailure ?? "\(bytes) bytes instead of \(expectedBytes)"
                            }
                        } catch {
                            outcome.failures += 1
                            outcome.firstFailure = outcome.firstFailure ?? "\(error)"
                        }
                    }
                    return outcome
                }
            }
            var total = Outcome()
            for await outcome in group {
                total.failures += outcome.failures
                total.firstFailure = total.firstFailure ?? outcome.firstFailure
            }
            return total
        }
    }
}
