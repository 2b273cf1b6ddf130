extension Redactor {
    /// The headers with every masked value replaced by ``/HTTPCoreRedaction/Redactor/mask``; names and order are
    /// kept. Each value goes through ``/HTTPCoreRedaction/Redactor/redactedHeaderValue(_:name:)``.
    public func redactedHeaders(_ headers: HTTPHeaders) -> HTTPHeaders {
        guard redactsHeaders else { return headers }
        var result = headers
        result.mapValues { field in redactedHeaderValue(field.value, name: field.name) }
        return result
    }
}
