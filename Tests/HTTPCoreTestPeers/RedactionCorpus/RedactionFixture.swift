/// One request or response body of a real public API, written from its documentation, and
/// the secrets in it: the precision corpus of the redaction engine.
///
/// Every value of the body that is not one of ``secrets`` (and does not contain one) must come
/// out of `Redactor.standard` byte-identical, with its JSON type; every secret must not come
/// out at all.
public struct RedactionFixture: Sendable {
    /// What the body is: the API and the operation, and whether it is streamed.
    public let name: String
    /// The documentation page the shape is written from.
    public let source: String
    /// The body's `Content-Type`.
    public let contentType: String
    /// The body, as the API sends it.
    public let body: String
    /// The secret values in the body, as they read once decoded (a JSON string's content, a
    /// form value percent-decoded, an element's text).
    public let secrets: [String]

    /// Creates a fixture.
    public init(_ name: String, source: String, contentType: String, body: String, secrets: [String] = []) {
        self.name = name
        self.source = source
        self.contentType = contentType
        self.body = body
        self.secrets = secrets
    }
}
