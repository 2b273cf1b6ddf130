extension HTTPEvent {
    /// How the transport reached the response when it followed redirects; `nil` when it
    /// followed none, or before a response. Reading it redacts nothing.
    package var redirection: HTTPRedirection? { responseRecord?.response.redirection }

    /// The request that got the event's status, as outputs show it: with the header fields
    /// the transport added (``/HTTPCore/HTTPResponse/addedRequestHeaders``, or for an attempt that
    /// failed before a response ``/HTTPCore/HTTPError/addedRequestHeaders``) after its own, and after
    /// redirects (``redirection``) with the final request's method and URL, and the body only
    /// when that request carried it again; otherwise it is ``request``.
    package var finalRequest: ExposedRequest {
        var request = requestRecord.exposed
        let added = responseRecord?.exposedAddedRequestHeaders ?? errorRecord?.exposedAddedRequestHeaders ?? [:]
        for field in added where !request.headers.contains(field.name) {
            request.headers.add(name: field.name, value: field.value)
        }
        guard let responseRecord, let redirection else { return request }
        request.method = redirection.method
        request.url = responseRecord.exposedURL
        if !redirection.resentBody {
            request.body = nil
            request.isBodyTruncated = false
        }
        return request
    }

    /// The body bytes of the request that got the event's status: 0 when a redirect left the
    /// body behind, otherwise ``requestBodyByteCount``.
    package var finalRequestBodyByteCount: Int {
        redirection?.resentBody == false ? 0 : requestBodyByteCount
    }

    /// The method of the request that got the event's status: the final request's after
    /// redirects, otherwise ``method``. Reading it redacts nothing.
    package var finalMethod: HTTPMethod { redirection?.method ?? method }

    /// The redacted URL of the request that got the event's status: the response's after
    /// redirects, otherwise ``requestURL``. Reading it redacts that URL alone.
    package var finalURL: String {
        guard redirection != nil, let responseRecord else { return requestURL }
        return responseRecord.exposedURL
    }

    /// The route of a redirected exchange, for a line of text (see
    /// ``/HTTPCore/HTTPRedirection/route(from:_:to:)``); `nil` when no redirect was followed. Reading
    /// it redacts the two URLs alone.
    package var redirectRoute: String? {
        guard let redirection else { return nil }
        return redirection.route(from: method.rawValue, requestURL, to: finalURL)
    }
}
