import HTTPCore
extension GenAIExchange {
    /// The call `recognition` describes, which asked for `request` and got `response`, with the
    /// ``errorType`` that the way its HTTP exchange ended gives it.
    ///
    /// ``errorType`` is, the first that applies:
    /// - the provider's code (``GenAIResponse/errorCode``: `rate_limit_exceeded`,
    ///   `overloaded_error`, `RESOURCE_EXHAUSTED`, `ThrottlingException`, …), as the GenAI
    ///   conventions ask;
    /// - for an exchange that ended with `error`, its ``/HTTPCore/HTTPError/typeName``: `timeout`,
    ///   `cancelled`, `connection_lost`, … (a stream cut short keeps what arrived until then in
    ///   `response`);
    /// - for a response of status 400 or more, the status as text (`"503"`), as OpenTelemetry's
    ///   HTTP conventions set `error.type`;
    /// - when the provider reported an error without a code (a stream answered with 200 that
    ///   ends with an error event), ``otherErrorType``;
    /// - else `nil`: the call succeeded.
    ///
    /// `statusCode` is the response's status, `nil` when no response arrived.
    package init(
        recognition: GenAIRecognition, request: GenAIRequestParameters, response: GenAIResponse, statusCode: Int?, error: HTTPError?
    ) {
        self.init(recognition: recognition, request: request, response: response)
        if response.errorCode != nil { return }
        if let error {
            errorType = error.typeName
        } else if let statusCode, statusCode >= 400 {
            errorType = String(statusCode)
        }
    }
}
