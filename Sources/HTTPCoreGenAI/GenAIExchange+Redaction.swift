import HTTPCore
extension GenAIExchange {
    /// The call with each fact that is text from the wire masked as the body value it was read
    /// from would be: ``/HTTPCoreRedaction/Redactor/mask`` when `redactor` masks one of the
    /// body keys providers send it under, and otherwise its text rules
    /// (``/HTTPCoreRedaction/Redactor/redactedText(_:)``), which mask a provider key pasted
    /// into `model` or a Gemini model path.
    ///
    /// | Fact | Body keys |
    /// |---|---|
    /// | ``GenAIRequestParameters/model``, ``GenAIRecognition/modelInPath``, ``GenAIResponse/model`` | `model`, `modelVersion` |
    /// | ``GenAIRequestParameters/stopSequences`` | `stop`, `stop_sequences` |
    /// | ``GenAIResponse/id`` | `id`, `response_id` |
    /// | ``GenAIResponse/finishReasons``, ``GenAIResponse/providerFinishReasons`` | `finish_reason`, `stop_reason`, `done_reason` |
    /// | ``GenAIResponse/errorCode`` (and ``errorType`` when it is that code) | `code`, `type`, `status`, `error_type` |
    ///
    /// So `sensitiveBodyKeys: ["stop"]` masks the stop sequences, and `.strict` every one of
    /// these facts unless its first key is allowed (`allowedBodyKeys: ["model"]`). Numbers (token
    /// counts, sampling parameters, times) are kept: they cannot carry a credential. The
    /// provider's and operation's names and the server's address come from the route table
    /// and the URL's host, not from a body, and are kept too.
    ///
    /// The client's policy applies it once, as the facts are derived: the sinks and spans show
    /// them so. ``note(redactedBy:)`` applies another on top for a caller that asks. Masking
    /// again by the same redactor changes nothing.
    ///
    /// - Parameter redactor: The redactor whose names and level judge the facts.
    /// - Returns: The call, its text facts masked.
    package func redacted(by redactor: Redactor) -> GenAIExchange {
        var call = self
        let model = Self.factMasker(redactor, keys: ["model", "modelVersion"])
        call.recognition.modelInPath = recognition.modelInPath.map(model)
        call.request.model = request.model.map(model)
        call.response.model = response.model.map(model)
        call.request.stopSequences = request.stopSequences.map { $0.map(Self.factMasker(redactor, keys: ["stop", "stop_sequences"])) }
        call.response.id = response.id.map(Self.factMasker(redactor, keys: ["id", "response_id"]))
        let finish = Self.factMasker(redactor, keys: ["finish_reason", "stop_reason", "done_reason"])
        call.response.finishReasons = response.finishReasons.map(finish)
        call.response.providerFinishReasons = response.providerFinishReasons.map(finish)
        let code = Self.factMasker(redactor, keys: ["code", "type", "status", "error_type"])
        call.response.errorCode = response.errorCode.map(code)
        if let errorCode = response.errorCode, errorType == errorCode { call.errorType = call.response.errorCode }
        return call
    }

    /// How one kind of fact is masked: whole when a key it comes under is masked, else by the
    /// text rules. `.strict` judges it by its first key, so allowing that one keeps it; the
    /// others mask it only by name (a configured or built-in sensitive one). A fact `.strict`
    /// keeps is under an allowed key, so `.standard`'s text rules read it: a model name is no
    /// random word to mask, a provider key in it still is.
    private static func factMasker(_ redactor: Redactor, keys: [String]) -> (String) -> String {
        var byName = redactor
        if byName.level == .strict { byName.level = .standard }
        if redactor.masksBodyKey(keys[0]) || keys.dropFirst().contains(where: byName.masksBodyKey) { return { _ in Redactor.mask } }
        return byName.redactedText
    }
}
