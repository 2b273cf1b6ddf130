extension Redactor {
    /// The headers with every masked value replaced by ``/HTTPCoreRedaction/Redactor/mask``; order is kept.
    /// Each value goes through ``/HTTPCoreRedaction/Redactor/redactedHeaderValue(_:name:)``, judged by its
    /// name as sent, and each name through ``/HTTPCoreRedaction/Redactor/redactedHeaderName(_:)``, which
    /// keeps ordinary names as written.
    public func redactedHeaders(_ headers: HTTPHeaders) -> HTTPHeaders {
        guard redactsHeaders else { return headers }
        var result = headers
        result.mapFields { field in
            HTTPHeaders.Field(name: redactedHeaderName(field.name), value: redactedHeaderValue(field.value, name: field.name))
        }
        return result
    }
}
