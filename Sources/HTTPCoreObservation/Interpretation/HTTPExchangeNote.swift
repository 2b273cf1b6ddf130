/// What a sink shows of an ``HTTPExchangeAttachment``: a name, a one-line summary and named
/// values, as dev-see, the console, HAR and Loki render them.
public struct HTTPExchangeNote: Sendable, Hashable {
    /// One named value, under a name such as an OpenTelemetry attribute's.
    public struct Attribute: Sendable, Hashable {
        /// The attribute's name: `gen_ai.request.model`.
        public var name: String
        /// Its value.
        public var value: Value

        /// Creates an attribute.
        ///
        /// - Parameters:
        ///   - name: The attribute's name.
        ///   - value: Its value.
        public init(_ name: String, _ value: Value) {
            self.name = name
            self.value = value
        }
    }

    /// The value of an attribute, in the types OpenTelemetry attributes take.
    public enum Value: Sendable, Hashable {
        /// A string.
        case string(String)
        /// An integer.
        case int(Int)
        /// A double.
        case double(Double)
        /// A boolean.
        case bool(Bool)
        /// A list of strings.
        case stringArray([String])
    }

    /// The note's name, the key it is stored under (dev-see's and HAR's `_` member) and the
    /// tag it is shown with: `genAI`.
    public var name: String
    /// One line on what the exchange was: `openai chat gpt-4o: 12 in, 40 out, stop`.
    public var summary: String
    /// The named values, in the order to show them.
    public var attributes: [Attribute]
    /// Whether the note reports a failure the HTTP status does not show (an LLM provider's
    /// error in a 200 stream, say): sinks then show the exchange as a warning.
    public var reportsFailure: Bool

    /// Creates a note.
    ///
    /// - Parameters:
    ///   - name: The note's name.
    ///   - summary: One line on what the exchange was.
    ///   - attributes: The named values, in order.
    ///   - reportsFailure: Whether it reports a failure the status does not show.
    public init(name: String, summary: String, attributes: [Attribute] = [], reportsFailure: Bool = false) {
        self.name = name
        self.summary = summary
        self.attributes = attributes
        self.reportsFailure = reportsFailure
    }
}
