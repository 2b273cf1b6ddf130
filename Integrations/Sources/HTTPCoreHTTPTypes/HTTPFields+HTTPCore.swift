import HTTPCore
import HTTPTypes

extension HTTPFields {
    /// HTTPCore's headers as swift-http-types fields: every field in order, repeated names
    /// kept as separate fields, names with their case as written.
    ///
    /// - Throws: ``HTTPTypesConversionError`` for a name that is not an HTTP token or a value
    ///   with a byte HTTP forbids; nothing is rewritten.
    public init(_ headers: HTTPCore.HTTPHeaders) throws(HTTPTypesConversionError) {
        self.init()
        reserveCapacity(headers.fields.count)
        for field in headers {
            guard let name = HTTPField.Name(field.name) else { throw .invalidFieldName(field.name) }
            guard HTTPField.isValidValue(field.value) else { throw .invalidFieldValue(name: field.name) }
            append(HTTPField(name: name, value: field.value))
        }
    }
}

extension HTTPCore.HTTPHeaders {
    /// swift-http-types fields as HTTPCore's headers: every field in order, repeated names kept,
    /// each name as it was written (`rawName`).
    public init(_ fields: HTTPFields) {
        self.init()
        reserveCapacity(fields.count)
        for field in fields {
            add(name: field.name.rawName, value: field.value)
        }
    }
}
