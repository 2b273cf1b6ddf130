import Foundation

extension HTTPResponse {
    /// The fields of a response, held once for all its copies: copying a response retains this
    /// one reference instead of each field's.
    ///
    /// `@unchecked Sendable`: its fields are `var`s, but ``HTTPResponse`` writes them only
    /// through a reference it holds alone (`isKnownUniquelyReferenced`), copying the storage
    /// first otherwise, so a storage that two values (or two threads) share is never written.
    /// Its fields skip the runtime's exclusivity check (`@exclusivity(unchecked)`, about 200
    /// instructions an access): every access goes through a message value, whose own
    /// exclusivity the compiler checks, so two accesses to one storage never overlap.
    final class Storage: @unchecked Sendable {
        /// See ``HTTPResponse/requestID``.
        @exclusivity(unchecked) var requestID: HTTPRequest.ID
        /// See ``HTTPResponse/statusCode``.
        @exclusivity(unchecked) var statusCode: Int
        /// See ``HTTPResponse/headers``.
        @exclusivity(unchecked) var headers: HTTPHeaders
        /// See ``HTTPResponse/body``.
        @exclusivity(unchecked) var body: Data
        /// See ``HTTPResponse/url``.
        @exclusivity(unchecked) var url: URL
        /// See ``HTTPResponse/redirection``.
        @exclusivity(unchecked) var redirection: HTTPRedirection?
        /// See ``HTTPResponse/addedRequestHeaders``.
        @exclusivity(unchecked) var addedRequestHeaders: HTTPHeaders

        /// Creates a storage holding the given fields.
        init(
            requestID: HTTPRequest.ID, statusCode: Int, headers: HTTPHeaders, body: Data, url: URL,
            redirection: HTTPRedirection?, addedRequestHeaders: HTTPHeaders
        ) {
            self.requestID = requestID
            self.statusCode = statusCode
            self.headers = headers
            self.body = body
            self.url = url
            self.redirection = redirection
            self.addedRequestHeaders = addedRequestHeaders
        }

        /// A new storage with the same fields, for a response about to change a shared one.
        func copy() -> Storage {
            Storage(
                requestID: requestID, statusCode: statusCode, headers: headers, body: body, url: url,
                redirection: redirection, addedRequestHeaders: addedRequestHeaders
            )
        }

        /// Whether every field equals `other`'s, as ``HTTPResponse``'s equality compares them.
        func hasSameFields(as other: Storage) -> Bool {
            requestID == other.requestID && statusCode == other.statusCode && headers == other.headers
                && body == other.body && url == other.url && redirection == other.redirection
                && addedRequestHeaders == other.addedRequestHeaders
        }

        /// Feeds every field to `hasher`, as ``HTTPResponse``'s hashing does.
        func hashFields(into hasher: inout Hasher) {
            hasher.combine(requestID)
            hasher.combine(statusCode)
            hasher.combine(headers)
            hasher.combine(body)
            hasher.combine(url)
            hasher.combine(redirection)
            hasher.combine(addedRequestHeaders)
        }
    }
}
