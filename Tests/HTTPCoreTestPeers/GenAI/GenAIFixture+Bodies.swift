import HTTPCore
import HTTPCoreGenAI

/// LLM exchanges answered with one JSON body, in the shapes the providers document:
/// successes and the error bodies of rate limits and context-length refusals.
extension GenAIFixture {
    /// An OpenAI reasoning model's chat completion, not streamed, with cached and reasoning
    /// tokens, asking for two choices.
    public static let openAIChatCompletion = GenAIFixture(
        url: "https://api.openai.com/v1/chat/completions",
        requestBody: #"{"model":"o4-mini","messages":[{"role":"user","content":"Two names for a cat."}],"max_tokens":2000,"n":2,"stop":"<|end|>"}"#,
        responseBody: #"""
        {"id":"chatcmpl-Bx4Reasoning","object":"chat.completion","created":1741569952,"model":"o4-mini-2025-04-16",
         "choices":[{"index":0,"message":{"role":"assistant","content":"Miso","refusal":null,"annotations":[]},"logprobs":null,"finish_reason":"stop"},
                    {"index":1,"message":{"role":"assistant","content":"Pixel and","refusal":null,"annotations":[]},"logprobs":null,"finish_reason":"length"}],
         "usage":{"prompt_tokens":1380,"completion_tokens":1998,"total_tokens":3378,
                  "prompt_tokens_details":{"cached_tokens":1280,"audio_tokens":0},
                  "completion_tokens_details":{"reasoning_tokens":1920,"audio_tokens":0,"accepted_prediction_tokens":0,"rejected_prediction_tokens":0}},
         "service_tier":"default","system_fingerprint":null}
        """#
    )

    /// Anthropic Messages, not streamed, ending in a tool call, without cache counts.
    public static let anthropicMessage = GenAIFixture(
        url: "https://api.anthropic.com/v1/messages",
        requestBody: #"{"model":"claude-3-5-haiku-latest","max_tokens":512,"tools":[{"name":"get_weather","input_schema":{"type":"object"}}],"messages":[{"role":"user","content":"Weather in Lisbon?"}]}"#,
        responseBody: #"""
        {"id":"msg_01Aq9w938a90dw8q","type":"message","role":"assistant","model":"claude-3-5-haiku-20241022",
         "content":[{"type":"text","text":"Let me check."},{"type":"tool_use","id":"toolu_01A09q90qw90lq917835lq9","name":"get_weather","input":{"city":"Lisbon"}}],
         "stop_reason":"tool_use","stop_sequence":null,"usage":{"input_tokens":412,"output_tokens":57}}
        """#
    )

    /// Bedrock Converse, not streamed: the model id percent-encoded in the path, a cache read.
    public static let bedrockConverse = GenAIFixture(
        url: "https://bedrock-runtime.us-east-1.amazonaws.com/model/anthropic.claude-3-5-sonnet-20240620-v1%3A0/converse",
        requestBody: #"{"messages":[{"role":"user","content":[{"text":"Hello"}]}],"inferenceConfig":{"maxTokens":512,"temperature":0.5,"topP":0.9,"stopSequences":["</answer>"]},"additionalModelRequestFields":{"top_k":250}}"#,
        responseBody: #"""
        {"output":{"message":{"role":"assistant","content":[{"text":"Hello! How can I help?"}]}},"stopReason":"end_turn",
         "usage":{"inputTokens":30,"outputTokens":8,"totalTokens":1038,"cacheReadInputTokens":1000,"cacheWriteInputTokens":0},
         "metrics":{"latencyMs":412}}
        """#
    )

    /// OpenAI embeddings: input usage only.
    public static let openAIEmbeddings = GenAIFixture(
        url: "https://api.openai.com/v1/embeddings",
        requestBody: #"{"model":"text-embedding-3-small","input":"The food was delicious.","encoding_format":"float"}"#,
        responseBody: #"""
        {"object":"list","data":[{"object":"embedding","index":0,"embedding":[0.0023064255,-0.009327292,-0.0028842222]}],
         "model":"text-embedding-3-small","usage":{"prompt_tokens":5,"total_tokens":5}}
        """#
    )

    /// Ollama `/api/embed`: the input count only.
    public static let ollamaEmbed = GenAIFixture(
        url: "http://gpu-box.lan:11434/api/embed",
        requestBody: #"{"model":"all-minilm","input":["Why is the sky blue?"]}"#,
        responseBody: #"{"model":"all-minilm","embeddings":[[0.010071029,-0.0017594862,0.05007221]],"total_duration":14143917,"load_duration":1019500,"prompt_eval_count":8}"#
    )

    // MARK: Errors

    /// OpenAI's 429 for a tokens-per-minute limit.
    public static let openAIRateLimited = GenAIFixture(
        url: "https://api.openai.com/v1/chat/completions",
        requestBody: #"{"model":"gpt-4o","messages":[{"role":"user","content":"Hi"}]}"#,
        responseBody: #"{"error":{"message":"Rate limit reached for gpt-4o in organization org-xyz on tokens per min (TPM): Limit 30000, Used 29950, Requested 120. Please try again in 180ms.","type":"tokens","param":null,"code":"rate_limit_exceeded"}}"#
    )

    /// OpenAI's 400 for a prompt longer than the context window.
    public static let openAIContextLengthExceeded = GenAIFixture(
        url: "https://api.openai.com/v1/chat/completions",
        requestBody: #"{"model":"gpt-4o","messages":[{"role":"user","content":"…"}]}"#,
        responseBody: #"{"error":{"message":"This model's maximum context length is 128000 tokens. However, your messages resulted in 130532 tokens. Please reduce the length of the messages.","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}}"#
    )

    /// Anthropic's 429.
    public static let anthropicRateLimited = GenAIFixture(
        url: "https://api.anthropic.com/v1/messages",
        requestBody: #"{"model":"claude-sonnet-4-20250514","max_tokens":1024,"messages":[{"role":"user","content":"Hi"}]}"#,
        responseBody: #"{"type":"error","error":{"type":"rate_limit_error","message":"This request would exceed the rate limit for your organization of 50 requests per minute."},"request_id":"req_011CSHoEeqs5C35K2UUqR7Fy"}"#
    )

    /// Anthropic's 400 for a prompt longer than the context window.
    public static let anthropicPromptTooLong = GenAIFixture(
        url: "https://api.anthropic.com/v1/messages",
        requestBody: #"{"model":"claude-sonnet-4-20250514","max_tokens":1024,"messages":[{"role":"user","content":"…"}]}"#,
        responseBody: #"{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 215000 tokens > 200000 maximum"}}"#
    )

    /// Gemini's 429, a quota exhausted.
    public static let geminiRateLimited = GenAIFixture(
        url: "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-pro:generateContent",
        requestBody: #"{"contents":[{"parts":[{"text":"Hi"}]}]}"#,
        responseBody: #"{"error":{"code":429,"message":"You exceeded your current quota, please check your plan and billing details.","status":"RESOURCE_EXHAUSTED"}}"#
    )

    /// Gemini's 400 for an input over the model's token limit.
    public static let geminiInputTooLong = GenAIFixture(
        url: "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-pro:generateContent",
        requestBody: #"{"contents":[{"parts":[{"text":"…"}]}]}"#,
        responseBody: #"{"error":{"code":400,"message":"The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).","status":"INVALID_ARGUMENT"}}"#
    )

    /// Bedrock's throttling: the error is named in a header, the body has only a message.
    public static let bedrockThrottled = GenAIFixture(
        url: "https://bedrock-runtime.eu-west-1.amazonaws.com/model/amazon.nova-pro-v1%3A0/converse",
        requestBody: #"{"messages":[{"role":"user","content":[{"text":"Hi"}]}]}"#,
        responseBody: #"{"message":"Too many requests, please wait before trying again."}"#,
        responseHeaders: ["x-amzn-ErrorType": "ThrottlingException:http://internal.amazon.com/coral/com.amazon.bedrock/"]
    )

    /// Ollama's error: a bare message, no code.
    public static let ollamaModelMissing = GenAIFixture(
        url: "http://localhost:11434/api/chat",
        requestBody: #"{"model":"llama9","messages":[{"role":"user","content":"Hi"}],"stream":false}"#,
        responseBody: #"{"error":"model \"llama9\" not found, try pulling it first"}"#
    )
}
