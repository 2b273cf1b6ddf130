import HTTPCore
import HTTPCoreText

extension GenAIExchange {
    /// The call as a dev-see payload carries it (its `genAI` object and its `[llm]` line):
    /// every string read from the request or the response at most
    /// ``PayloadBuilder/maximumGenAIStringBytes`` bytes, and every list at most
    /// ``PayloadBuilder/maximumGenAIListCount`` values. The provider's and operation's names
    /// come from the recognizer's routes, not from the exchange, and are kept.
    ///
    /// A model name, a response id or a stop sequence comes from a body of up to megabytes,
    /// and cutting the bodies cannot make room for it: unbounded, one call's log could exceed
    /// the server's 1 MiB and be refused. A cut string ends with `…` (the marker included in
    /// the bound); a cut list keeps its first values and ends with a `…` value.
    var boundedForDevSee: GenAIExchange {
        var call = self
        call.recognition.modelInPath = recognition.modelInPath.map(Self.bounded)
        call.recognition.serverAddress = Self.bounded(recognition.serverAddress)
        call.request.model = request.model.map(Self.bounded)
        call.request.stopSequences = request.stopSequences.map(Self.bounded)
        call.response.id = response.id.map(Self.bounded)
        call.response.model = response.model.map(Self.bounded)
        call.response.finishReasons = Self.bounded(response.finishReasons)
        call.response.providerFinishReasons = Self.bounded(response.providerFinishReasons)
        call.response.errorCode = response.errorCode.map(Self.bounded)
        call.errorType = errorType.map(Self.bounded)
        return call
    }

    private static func bounded(_ text: String) -> String {
        UTF8Text.cut(text, toBytes: PayloadBuilder.maximumGenAIStringBytes - TruncationMarker.ellipsis.utf8.count)
    }

    private static func bounded(_ values: [String]) -> [String] {
        let limit = PayloadBuilder.maximumGenAIListCount
        guard values.count > limit else { return values.map(bounded) }
        // The last place says the list was cut, with the mark that ends a cut string.
        return values.prefix(limit - 1).map(bounded) + [TruncationMarker.ellipsis]
    }
}
