import HTTPCore

extension GenAIRecognizer: NameExceptionsProviding {
    /// Where LLM APIs use `token` for a piece of generated text, not a credential; a policy
    /// that interprets LLM calls gives them to its redactor, so generated text stays readable
    /// while a secret beside it is still masked. Without the interpreter, `token` judges what
    /// it holds as any secret's name does.
    ///
    /// - As a stream event's name: `event: token` (Hugging Face TGI and servers like it)
    ///   carries generated text, so its data is judged as any data.
    /// - As a key under log probabilities: `logprobs.content[].token` (OpenAI chat) and the
    ///   legacy completions' `logprobs.tokens` hold the generated tokens.
    /// - As the name of TGI's token objects: `"token": {"id": 578, "text": " the",
    ///   "logprob": -0.1, "special": false}`, and arrays of them under `tokens` and
    ///   `top_tokens`. An object of exactly those four members is generated text, not a
    ///   secret's parts.
    package var nameExceptions: NameExceptions { Self.generatedTextExceptions }

    private static let generatedTextExceptions = NameExceptions(
        eventNames: ["token", "tokens"],
        containers: [NameExceptions.Container(keyContaining: "logprob", maximumKeyBytes: 16, ordinaryKeys: ["token", "tokens"])],
        shapes: [NameExceptions.ObjectShape(members: ["id", "text", "logprob", "special"], under: ["token", "tokens", "top_tokens"])]
    )
}
