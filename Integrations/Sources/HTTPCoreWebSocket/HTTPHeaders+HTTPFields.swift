import HTTPCore
import HTTPTypes

extension HTTPHeaders {
    /// These headers as swift-http-types fields, in order, for swift-websocket's handshake;
    /// a name HTTPFields cannot hold is left out (a validated request has none).
    var httpFields: HTTPFields {
        var fields = HTTPFields()
        for field in self.fields {
            guard let name = HTTPField.Name(field.name) else { continue }
            fields.append(HTTPField(name: name, value: field.value))
        }
        return fields
    }
}
