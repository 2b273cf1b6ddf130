import HTTPCore

/// One `--filter` of `devsee-tail`: a condition on a stored log.
enum LogFilter: Equatable {
    /// The log's `correlationId` or `requestId` equals the text.
    case correlationID(String)
    /// The status is in the class and there was a response.
    case statusClass(HTTPResponse.Status.Kind)
    /// The status is this code and there was a response.
    case status(Int)
    /// There was no response: refused, timed out, cancelled.
    case failed
    /// The URL contains the text, ignoring case.
    case urlContains(String)

    /// Reads `correlation=ID`, `status=2xx|404|failed`, `url=TEXT` or plain text (a URL part).
    init?(_ text: String) {
        let parts = text.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 2 else {
            guard !text.isEmpty else { return nil }
            self = .urlContains(text)
            return
        }
        let (name, value) = (parts[0].lowercased(), parts[1])
        switch name {
        case "correlation", "correlationid", "correlation-id", "id":
            guard !value.isEmpty else { return nil }
            self = .correlationID(value)
        case "status":
            let lowered = value.lowercased()
            if lowered == "failed" || lowered == "failure" {
                self = .failed
            } else if let kind = [HTTPResponse.Status.Kind.informational, .successful, .redirection, .clientError, .serverError]
                .first(where: { $0.label == lowered }) {
                self = .statusClass(kind)
            } else if let code = Int(lowered), (100...599).contains(code) {
                self = .status(code)
            } else {
                return nil
            }
        case "url":
            guard !value.isEmpty else { return nil }
            self = .urlContains(value)
        default:
            // Plain text with an `=` in it, such as a query: a URL part.
            self = .urlContains(text)
        }
    }

    /// Filters of the same kind are alternatives (`status=4xx` or `status=5xx`).
    var kind: Int {
        switch self {
        case .correlationID: 0
        case .statusClass, .status, .failed: 1
        case .urlContains: 2
        }
    }

    func matches(_ log: StoredLog) -> Bool {
        switch self {
        case .correlationID(let id): log.correlationID == id || log.requestID == id
        case .statusClass(let kind): !log.isFailure && HTTPResponse.Status.Kind(code: log.statusCode) == kind
        case .status(let code): !log.isFailure && log.statusCode == code
        case .failed: log.isFailure
        case .urlContains(let text): log.url.lowercased().contains(text.lowercased())
        }
    }

    /// Whether a log passes every kind of filter in the list (and any one filter of a kind).
    static func log(_ log: StoredLog, passes filters: [LogFilter]) -> Bool {
        Dictionary(grouping: filters, by: \.kind).values.allSatisfy { alternatives in
            alternatives.contains { $0.matches(log) }
        }
    }
}
