/// Streamed LLM exchanges in the shapes the providers document.
extension GenAIFixture {
    /// OpenAI chat completions with `stream_options.include_usage`: a role-only first delta,
    /// three content deltas, a finish chunk, a usage-only chunk, `[DONE]`.
    public static let openAIChatStream = GenAIFixture(
        url: "https://api.openai.com/v1/chat/completions",
        requestBody: #"""
        {"model":"gpt-4o-mini","messages":[{"role":"user","content":"Why is the sky blue? One sentence."}],
         "max_completion_tokens":256,"temperature":0.2,"top_p":0.9,"stop":["\n\n"],"seed":42,
         "frequency_penalty":0.5,"presence_penalty":0.25,"n":1,"stream":true,"stream_options":{"include_usage":true}}
        """#,
        responseBody: #"""
        data: {"id":"chatcmpl-B9MHDbslfkBeAs8l4bebGdFOJ6PeG","object":"chat.completion.chunk","created":1741570283,"model":"gpt-4o-mini-2024-07-18","system_fingerprint":"fp_06737a9306","choices":[{"index":0,"delta":{"role":"assistant","content":"","refusal":null},"logprobs":null,"finish_reason":null}],"usage":null}

        data: {"id":"chatcmpl-B9MHDbslfkBeAs8l4bebGdFOJ6PeG","object":"chat.completion.chunk","created":1741570283,"model":"gpt-4o-mini-2024-07-18","system_fingerprint":"fp_06737a9306","choices":[{"index":0,"delta":{"content":"Rayleigh"},"logprobs":null,"finish_reason":null}],"usage":null}

        data: {"id":"chatcmpl-B9MHDbslfkBeAs8l4bebGdFOJ6PeG","object":"chat.completion.chunk","created":1741570283,"model":"gpt-4o-mini-2024-07-18","system_fingerprint":"fp_06737a9306","choices":[{"index":0,"delta":{"content":" scattering"},"logprobs":null,"finish_reason":null}],"usage":null}

        data: {"id":"chatcmpl-B9MHDbslfkBeAs8l4bebGdFOJ6PeG","object":"chat.completion.chunk","created":1741570283,"model":"gpt-4o-mini-2024-07-18","system_fingerprint":"fp_06737a9306","choices":[{"index":0,"delta":{"content":" makes the sky blue."},"logprobs":null,"finish_reason":null}],"usage":null}

        data: {"id":"chatcmpl-B9MHDbslfkBeAs8l4bebGdFOJ6PeG","object":"chat.completion.chunk","created":1741570283,"model":"gpt-4o-mini-2024-07-18","system_fingerprint":"fp_06737a9306","choices":[{"index":0,"delta":{},"logprobs":null,"finish_reason":"stop"}],"usage":null}

        data: {"id":"chatcmpl-B9MHDbslfkBeAs8l4bebGdFOJ6PeG","object":"chat.completion.chunk","created":1741570283,"model":"gpt-4o-mini-2024-07-18","system_fingerprint":"fp_06737a9306","choices":[],"usage":{"prompt_tokens":1214,"completion_tokens":9,"total_tokens":1223,"prompt_tokens_details":{"cached_tokens":1152,"audio_tokens":0},"completion_tokens_details":{"reasoning_tokens":0,"audio_tokens":0,"accepted_prediction_tokens":0,"rejected_prediction_tokens":0}}}

        data: [DONE]


        """#,
        contentType: "text/event-stream"
    )

    /// OpenAI chat completions streaming a tool call, without `include_usage`: the name
    /// first, then argument fragments, then `finish_reason: "tool_calls"`.
    public static let openAIToolCallStream = GenAIFixture(
        url: "https://api.openai.com/v1/chat/completions",
        requestBody: #"{"model":"gpt-4.1","messages":[{"role":"user","content":"Weather in Lisbon?"}],"tools":[{"type":"function","function":{"name":"get_weather","parameters":{"type":"object","properties":{"city":{"type":"string"}}}}}],"stream":true}"#,
        responseBody: #"""
        data: {"id":"chatcmpl-C1tool","object":"chat.completion.chunk","created":1741570300,"model":"gpt-4.1-2025-04-14","choices":[{"index":0,"delta":{"role":"assistant","content":null,"tool_calls":[{"index":0,"id":"call_DdmO9pD3xa9XTPNJ32zg2hcA","type":"function","function":{"name":"get_weather","arguments":""}}],"refusal":null},"finish_reason":null}]}

        data: {"id":"chatcmpl-C1tool","object":"chat.completion.chunk","created":1741570300,"model":"gpt-4.1-2025-04-14","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"city\":"}}]},"finish_reason":null}]}

        data: {"id":"chatcmpl-C1tool","object":"chat.completion.chunk","created":1741570300,"model":"gpt-4.1-2025-04-14","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"\"Lisbon\"}"}}]},"finish_reason":null}]}

        data: {"id":"chatcmpl-C1tool","object":"chat.completion.chunk","created":1741570300,"model":"gpt-4.1-2025-04-14","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}

        data: [DONE]


        """#,
        contentType: "text/event-stream"
    )

    /// The OpenAI Responses API, streamed: created, in progress, an output item and its part
    /// added, two text deltas, the text done, completed with usage.
    public static let openAIResponsesStream = GenAIFixture(
        url: "https://api.openai.com/v1/responses",
        requestBody: #"{"model":"gpt-4.1","input":"Say hi to the team.","max_output_tokens":64,"temperature":1,"top_p":1,"stream":true}"#,
        responseBody: #"""
        event: response.created
        data: {"type":"response.created","sequence_number":0,"response":{"id":"resp_67c9fdcecf488190bdd9a0409de3a1ec07b8b0ad4e5eb654","object":"response","created_at":1741290958,"status":"in_progress","error":null,"incomplete_details":null,"model":"gpt-4.1-2025-04-14","output":[],"usage":null}}

        event: response.in_progress
        data: {"type":"response.in_progress","sequence_number":1,"response":{"id":"resp_67c9fdcecf488190bdd9a0409de3a1ec07b8b0ad4e5eb654","object":"response","created_at":1741290958,"status":"in_progress","error":null,"incomplete_details":null,"model":"gpt-4.1-2025-04-14","output":[],"usage":null}}

        event: response.output_item.added
        data: {"type":"response.output_item.added","sequence_number":2,"output_index":0,"item":{"id":"msg_67c9fdcf37fc8190ba82116e33fb28c507b8b0ad4e5eb654","type":"message","status":"in_progress","role":"assistant","content":[]}}

        event: response.content_part.added
        data: {"type":"response.content_part.added","sequence_number":3,"item_id":"msg_67c9fdcf37fc8190ba82116e33fb28c507b8b0ad4e5eb654","output_index":0,"content_index":0,"part":{"type":"output_text","text":"","annotations":[]}}

        event: response.output_text.delta
        data: {"type":"response.output_text.delta","sequence_number":4,"item_id":"msg_67c9fdcf37fc8190ba82116e33fb28c507b8b0ad4e5eb654","output_index":0,"content_index":0,"delta":"Hi"}

        event: response.output_text.delta
        data: {"type":"response.output_text.delta","sequence_number":5,"item_id":"msg_67c9fdcf37fc8190ba82116e33fb28c507b8b0ad4e5eb654","output_index":0,"content_index":0,"delta":" team!"}

        event: response.output_text.done
        data: {"type":"response.output_text.done","sequence_number":6,"item_id":"msg_67c9fdcf37fc8190ba82116e33fb28c507b8b0ad4e5eb654","output_index":0,"content_index":0,"text":"Hi team!"}

        event: response.completed
        data: {"type":"response.completed","sequence_number":7,"response":{"id":"resp_67c9fdcecf488190bdd9a0409de3a1ec07b8b0ad4e5eb654","object":"response","created_at":1741290958,"status":"completed","error":null,"incomplete_details":null,"model":"gpt-4.1-2025-04-14","output":[{"id":"msg_67c9fdcf37fc8190ba82116e33fb28c507b8b0ad4e5eb654","type":"message","status":"completed","role":"assistant","content":[{"type":"output_text","text":"Hi team!","annotations":[]}]}],"usage":{"input_tokens":37,"input_tokens_details":{"cached_tokens":0},"output_tokens":4,"output_tokens_details":{"reasoning_tokens":0},"total_tokens":41}}}


        """#,
        contentType: "text/event-stream"
    )

    /// Anthropic Messages, streamed: `message_start` with input and cache usage, a text block
    /// with a `ping` inside, `message_delta` with the stop reason and the cumulative output
    /// count, `message_stop`.
    public static let anthropicStream = GenAIFixture(
        url: "https://api.anthropic.com/v1/messages",
        requestBody: #"{"model":"claude-sonnet-4-20250514","max_tokens":1024,"temperature":0.7,"top_k":40,"top_p":0.95,"stop_sequences":["\n\nHuman:"],"stream":true,"system":[{"type":"text","text":"You are terse.","cache_control":{"type":"ephemeral"}}],"messages":[{"role":"user","content":"Hello"}]}"#,
        responseBody: #"""
        event: message_start
        data: {"type":"message_start","message":{"id":"msg_01XFDUDYJgAACzvnptvVoYEL","type":"message","role":"assistant","model":"claude-sonnet-4-20250514","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":25,"cache_creation_input_tokens":1024,"cache_read_input_tokens":2048,"output_tokens":1}}}

        event: content_block_start
        data: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}

        event: ping
        data: {"type": "ping"}

        event: content_block_delta
        data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hello"}}

        event: content_block_delta
        data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"! How can I help?"}}

        event: content_block_stop
        data: {"type":"content_block_stop","index":0}

        event: message_delta
        data: {"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":15}}

        event: message_stop
        data: {"type":"message_stop"}


        """#,
        contentType: "text/event-stream"
    )

    /// Gemini `streamGenerateContent?alt=sse` with thinking: every event carries running
    /// usage; the last has the finish reason and the cached and thought counts.
    public static let geminiStream = GenAIFixture(
        url: "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse",
        requestBody: #"{"contents":[{"role":"user","parts":[{"text":"A haiku about a lighthouse keeper."}]}],"generationConfig":{"temperature":0.9,"topP":0.95,"topK":64,"maxOutputTokens":1024,"stopSequences":["END"],"candidateCount":1,"seed":7,"presencePenalty":0.1,"frequencyPenalty":0.2}}"#,
        responseBody: #"""
        data: {"candidates": [{"content": {"parts": [{"text": "Salt wind on the glass,"}],"role": "model"},"index": 0}],"usageMetadata": {"promptTokenCount": 9,"candidatesTokenCount": 6,"totalTokenCount": 35,"thoughtsTokenCount": 20},"modelVersion": "gemini-2.5-flash","responseId": "mKNtaPWFD8ngz7IPpqO_kAQ"}

        data: {"candidates": [{"content": {"parts": [{"text": "\nhe trims the wick at midnight;"}],"role": "model"},"index": 0}],"usageMetadata": {"promptTokenCount": 9,"candidatesTokenCount": 14,"totalTokenCount": 43,"thoughtsTokenCount": 20},"modelVersion": "gemini-2.5-flash","responseId": "mKNtaPWFD8ngz7IPpqO_kAQ"}

        data: {"candidates": [{"content": {"parts": [{"text": "\nships he'll never meet.\n"}],"role": "model"},"finishReason": "STOP","index": 0}],"usageMetadata": {"promptTokenCount": 9,"candidatesTokenCount": 21,"totalTokenCount": 50,"cachedContentTokenCount": 4,"thoughtsTokenCount": 20,"promptTokensDetails": [{"modality": "TEXT","tokenCount": 9}]},"modelVersion": "gemini-2.5-flash","responseId": "mKNtaPWFD8ngz7IPpqO_kAQ"}


        """#,
        contentType: "text/event-stream"
    )

    /// Hugging Face TGI `/generate_stream` on a server of one's own: token events, the last
    /// one special, with the generated text and details.
    public static let textGenerationInferenceStream = GenAIFixture(
        url: "http://tgi.internal:8080/generate_stream",
        requestBody: #"{"inputs":"Why is the sky blue?","parameters":{"max_new_tokens":20,"temperature":0.5,"top_k":10,"top_p":0.9,"seed":3,"stop":["\n"]}}"#,
        responseBody: #"""
        data:{"index":1,"token":{"id":578,"text":" The","logprob":-0.31,"special":false},"generated_text":null,"details":null}

        data:{"index":2,"token":{"id":13180,"text":" sky","logprob":-0.12,"special":false},"generated_text":null,"details":null}

        data:{"index":3,"token":{"id":2,"text":"</s>","logprob":-0.01,"special":true},"generated_text":" The sky","details":{"finish_reason":"eos_token","generated_tokens":3,"seed":3}}


        """#,
        contentType: "text/event-stream"
    )

    /// Ollama `/api/chat`, streamed as it is by default (the request says nothing of
    /// streaming): NDJSON lines, the last with `done_reason` and the counts.
    public static let ollamaChatStream = GenAIFixture(
        url: "http://localhost:11434/api/chat",
        requestBody: #"{"model":"llama3.2","messages":[{"role":"user","content":"Why is the sky blue?"}],"options":{"num_predict":128,"temperature":0.8,"top_k":40,"top_p":0.9,"seed":101,"stop":["User:"]}}"#,
        responseBody: #"""
        {"model":"llama3.2","created_at":"2025-03-10T10:00:00.100Z","message":{"role":"assistant","content":"The sky"},"done":false}
        {"model":"llama3.2","created_at":"2025-03-10T10:00:00.150Z","message":{"role":"assistant","content":" looks blue."},"done":false}
        {"model":"llama3.2","created_at":"2025-03-10T10:00:00.200Z","message":{"role":"assistant","content":""},"done":true,"done_reason":"stop","total_duration":4883583458,"load_duration":1334875,"prompt_eval_count":26,"prompt_eval_duration":342546000,"eval_count":282,"eval_duration":4535599000}

        """#,
        contentType: "application/x-ndjson"
    )
}
