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

    /// The first of the policy's reported headers that `headers` carry, as a request's
    /// correlation id (see ``HTTPCorePolicy/reportedCorrelation(in:)``).
    ///
    /// Asked here, where the policy is read in place: asked of `policy` from outside, the
    /// policy would be copied out of the box first (a retain and a release of each of its
    /// references, about 340 instructions), twice an exchange.
    func reportedCorrelation(in headers: HTTPHeaders) -> RequestRecord.Correlation? {
        policy.reportedCorrelation(in: headers).map { .init(headerName: $0.headerName, value: $0.value, isGenerated: false) }
    }
}
