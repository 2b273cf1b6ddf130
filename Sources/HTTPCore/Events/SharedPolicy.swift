/// A client's ``HTTPCorePolicy``, boxed once so that the records of its exchanges share it.
///
/// A policy is a struct of several references (the redactor's lists, the recognizer, the
/// correlation header's name): a record that held a copy would retain and release each of
/// them, on the request path, for every record made. A record holds this box instead, one
/// reference.
final class SharedPolicy: Sendable {
    /// The policy, as the client was given it.
    let policy: HTTPCorePolicy

    /// Boxes `policy`.
    init(_ policy: HTTPCorePolicy) {
        self.policy = policy
    }
}
