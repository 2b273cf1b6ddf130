extension RedactionFixture {
    /// LLM APIs, streamed and not: OpenAI (Chat Completions, Responses, Embeddings, Models and
    /// an error), Anthropic Messages, Gemini `generateContent`, Hugging Face Text Generation
    /// Inference and Ollama, request and response bodies as their public documentation shows
    /// them: JSON, server-sent events (`data:` lines, with and without `event:` lines, ending
    /// with `data: [DONE]` or not) and newline-delimited JSON.
    ///
    /// Most of these bodies carry no secret at all, and are here for precision: the many
    /// fields named after tokens (`max_tokens`, `prompt_tokens`, `cached_tokens`,
    /// `input_tokens`, `maxOutputTokens`, `totalTokenCount`, TGI's `token` and `tokens`,
    /// `max_new_tokens`) are counts and token texts, not credentials; ids (`chatcmpl-…`,
    /// `call_…`, `resp_…`, `msg_01…`, `toolu_01…`, `req_…`, Gemini response ids), system
    /// fingerprints, model digests, logprobs, embeddings, durations and an already masked key
    /// in an error message (`sk-proj-****…abcd`) must all come out untouched. The secrets are
    /// the ones people paste into prompts or that models echo back: an OpenAI project key in a
    /// user message, a password inside tool-call arguments (JSON in a JSON string), a SendGrid
    /// key in an Anthropic `tool_use` input, a GitHub token streamed as a delta, a Stripe
    /// restricted key in an MCP tool's headers and an AWS secret access key in an Ollama chat.
    public static let llmCorpus: [RedactionFixture] = [
        // MARK: OpenAI Chat Completions

        RedactionFixture("OpenAI chat completion request", source: "https://platform.openai.com/docs/api-reference/chat/create", contentType: "application/json", body: #"""
        {
          "model": "gpt-4.1-2025-04-14",
          "messages": [
            {
              "role": "developer",
              "content": "You are a travel assistant. Use the tools to look up live data before answering."
            },
            {
              "role": "user",
              "content": "What's the weather like in Lisbon right now, and should I pack an umbrella?"
            }
          ],
          "max_completion_tokens": 512,
          "temperature": 0.7,
          "top_p": 0.95,
          "n": 1,
          "stream": true,
          "stream_options": {
            "include_usage": true
          },
          "tools": [
            {
              "type": "function",
              "function": {
                "name": "get_current_weather",
                "description": "Get the current weather in a given location",
                "parameters": {
                  "type": "object",
                  "properties": {
                    "location": {
                      "type": "string",
                      "description": "The city and country, e.g. Lisbon, Portugal"
                    },
                    "unit": {
                      "type": "string",
                      "enum": ["celsius", "fahrenheit"]
                    }
                  },
                  "required": ["location"],
                  "additionalProperties": false
                },
                "strict": true
              }
            }
          ],
          "tool_choice": "auto",
          "parallel_tool_calls": false,
          "user": "user-1842"
        }
        """#, secrets: []),

        RedactionFixture("OpenAI chat completion response", source: "https://platform.openai.com/docs/api-reference/chat/object", contentType: "application/json", body: #"""
        {
          "id": "chatcmpl-Hzk7cyN06cGKw6GoJQq0Q2UBtC5A0",
          "object": "chat.completion",
          "created": 1741569952,
          "model": "gpt-4.1-2025-04-14",
          "choices": [
            {
              "index": 0,
              "message": {
                "role": "assistant",
                "content": "It's 17°C and overcast in Lisbon with a 70% chance of light rain this evening, so yes, pack a compact umbrella.",
                "refusal": null,
                "annotations": []
              },
              "logprobs": null,
              "finish_reason": "stop"
            }
          ],
          "usage": {
            "prompt_tokens": 1117,
            "completion_tokens": 46,
            "total_tokens": 1163,
            "prompt_tokens_details": {
              "cached_tokens": 1024,
              "audio_tokens": 0
            },
            "completion_tokens_details": {
              "reasoning_tokens": 0,
              "audio_tokens": 0,
              "accepted_prediction_tokens": 0,
              "rejected_prediction_tokens": 0
            }
          },
          "service_tier": "default",
          "system_fingerprint": "fp_b3f1157249"
        }
        """#, secrets: []),

        RedactionFixture("OpenAI chat completion, streamed", source: "https://platform.openai.com/docs/api-reference/chat/streaming", contentType: "text/event-stream; charset=utf-8", body: #"""
        data: {"id":"chatcmpl-MnURrUW9Bt4iTBftiF41HjPIU3ze9","object":"chat.completion.chunk","created":1741570283,"model":"gpt-4o-mini-2024-07-18","service_tier":"default","system_fingerprint":"fp_06737a9306","choices":[{"index":0,"delta":{"role":"assistant","content":"","refusal":null},"logprobs":null,"finish_reason":null}],"usage":null}

        data: {"id":"chatcmpl-MnURrUW9Bt4iTBftiF41HjPIU3ze9","object":"chat.completion.chunk","created":1741570283,"model":"gpt-4o-mini-2024-07-18","service_tier":"default","system_fingerprint":"fp_06737a9306","choices":[{"index":0,"delta":{"content":"Rayleigh"},"logprobs":null,"finish_reason":null}],"usage":null}

        data: {"id":"chatcmpl-MnURrUW9Bt4iTBftiF41HjPIU3ze9","object":"chat.completion.chunk","created":1741570283,"model":"gpt-4o-mini-2024-07-18","service_tier":"default","system_fingerprint":"fp_06737a9306","choices":[{"index":0,"delta":{"content":" scattering"},"logprobs":null,"finish_reason":null}],"usage":null}

        data: {"id":"chatcmpl-MnURrUW9Bt4iTBftiF41HjPIU3ze9","object":"chat.completion.chunk","created":1741570283,"model":"gpt-4o-mini-2024-07-18","service_tier":"default","system_fingerprint":"fp_06737a9306","choices":[{"index":0,"delta":{"content":" makes"},"logprobs":null,"finish_reason":null}],"usage":null}

        data: {"id":"chatcmpl-MnURrUW9Bt4iTBftiF41HjPIU3ze9","object":"chat.completion.chunk","created":1741570283,"model":"gpt-4o-mini-2024-07-18","service_tier":"default","system_fingerprint":"fp_06737a9306","choices":[{"index":0,"delta":{"content":" the sky"},"logprobs":null,"finish_reason":null}],"usage":null}

        data: {"id":"chatcmpl-MnURrUW9Bt4iTBftiF41HjPIU3ze9","object":"chat.completion.chunk","created":1741570283,"model":"gpt-4o-mini-2024-07-18","service_tier":"default","system_fingerprint":"fp_06737a9306","choices":[{"index":0,"delta":{"content":" blue."},"logprobs":null,"finish_reason":null}],"usage":null}

        data: {"id":"chatcmpl-MnURrUW9Bt4iTBftiF41HjPIU3ze9","object":"chat.completion.chunk","created":1741570283,"model":"gpt-4o-mini-2024-07-18","service_tier":"default","system_fingerprint":"fp_06737a9306","choices":[{"index":0,"delta":{},"logprobs":null,"finish_reason":"stop"}],"usage":null}

        data: {"id":"chatcmpl-MnURrUW9Bt4iTBftiF41HjPIU3ze9","object":"chat.completion.chunk","created":1741570283,"model":"gpt-4o-mini-2024-07-18","service_tier":"default","system_fingerprint":"fp_06737a9306","choices":[],"usage":{"prompt_tokens":14,"completion_tokens":6,"total_tokens":20,"prompt_tokens_details":{"cached_tokens":0,"audio_tokens":0},"completion_tokens_details":{"reasoning_tokens":0,"audio_tokens":0,"accepted_prediction_tokens":0,"rejected_prediction_tokens":0}}}

        data: [DONE]


        """#, secrets: []),

        RedactionFixture("OpenAI chat completion request: user pastes an API key", source: "https://platform.openai.com/docs/api-reference/chat/create", contentType: "application/json", body: #"""
        {
          "model": "gpt-4o-mini",
          "messages": [
            {
              "role": "system",
              "content": "You are a helpful assistant for developers."
            },
            {
              "role": "user",
              "content": "My curl call keeps getting a 401. my key is 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 and I send it as Authorization: Bearer. What am I doing wrong?"
            }
          ],
          "max_tokens": 300,
          "temperature": 0.2,
          "top_p": 1,
          "frequency_penalty": 0,
          "presence_penalty": 0,
          "stream": false
        }
        """#, secrets: ["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"]),

        RedactionFixture("OpenAI chat completion response: tool call whose arguments hold a password", source: "https://platform.openai.com/docs/guides/function-calling", contentType: "application/json", body: #"""
        {
          "id": "chatcmpl-TXHLu732HqEyJ9QSGaKVIeDbuoDDW",
          "object": "chat.completion",
          "created": 1741571120,
          "model": "gpt-4o-2024-08-06",
          "choices": [
            {
              "index": 0,
              "message": {
                "role": "assistant",
                "content": null,
                "tool_calls": [
                  {
                    "id": "call_sFloWjq4AsE38DXYdlurJCFK",
                    "type": "function",
                    "function": {
                      "name": "create_database_user",
                      "arguments": "{\"username\":\"report_reader\",\"password\":\"Vq8#tLw2!mZr9pXe\",\"database\":\"analytics\",\"privileges\":[\"SELECT\"]}"
                    }
                  }
                ],
                "refusal": null,
                "annotations": []
              },
              "logprobs": null,
              "finish_reason": "tool_calls"
            }
          ],
          "usage": {
            "prompt_tokens": 212,
            "completion_tokens": 38,
            "total_tokens": 250,
            "prompt_tokens_details": {
              "cached_tokens": 0,
              "audio_tokens": 0
            },
            "completion_tokens_details": {
              "reasoning_tokens": 0,
              "audio_tokens": 0,
              "accepted_prediction_tokens": 0,
              "rejected_prediction_tokens": 0
            }
          },
          "service_tier": "default",
          "system_fingerprint": "fp_a7d06e42a7"
        }
        """#, secrets: ["Vq8#tLw2!mZr9pXe"]),

        RedactionFixture("OpenAI chat completion, streamed: a delta is a GitHub token", source: "https://platform.openai.com/docs/api-reference/chat/streaming", contentType: "text/event-stream; charset=utf-8", body: #"""
        data: {"id":"chatcmpl-77owJ4Fy5kixY4zPhs7WY7kPqhbnY","object":"chat.completion.chunk","created":1741572004,"model":"gpt-4o-mini-2024-07-18","service_tier":"default","system_fingerprint":"fp_06737a9306","choices":[{"index":0,"delta":{"role":"assistant","content":"","refusal":null},"logprobs":null,"finish_reason":null}]}

        data: {"id":"chatcmpl-77owJ4Fy5kixY4zPhs7WY7kPqhbnY","object":"chat.completion.chunk","created":1741572004,"model":"gpt-4o-mini-2024-07-18","service_tier":"default","system_fingerprint":"fp_06737a9306","choices":[{"index":0,"delta":{"content":"The"},"logprobs":null,"finish_reason":null}]}

        data: {"id":"chatcmpl-77owJ4Fy5kixY4zPhs7WY7kPqhbnY","object":"chat.completion.chunk","created":1741572004,"model":"gpt-4o-mini-2024-07-18","service_tier":"default","system_fingerprint":"fp_06737a9306","choices":[{"index":0,"delta":{"content":" GITHUB_TOKEN"},"logprobs":null,"finish_reason":null}]}

        data: {"id":"chatcmpl-77owJ4Fy5kixY4zPhs7WY7kPqhbnY","object":"chat.completion.chunk","created":1741572004,"model":"gpt-4o-mini-2024-07-18","service_tier":"default","system_fingerprint":"fp_06737a9306","choices":[{"index":0,"delta":{"content":" in your"},"logprobs":null,"finish_reason":null}]}

        data: {"id":"chatcmpl-77owJ4Fy5kixY4zPhs7WY7kPqhbnY","object":"chat.completion.chunk","created":1741572004,"model":"gpt-4o-mini-2024-07-18","service_tier":"default","system_fingerprint":"fp_06737a9306","choices":[{"index":0,"delta":{"content":" .env is "},"logprobs":null,"finish_reason":null}]}

        data: {"id":"chatcmpl-77owJ4Fy5kixY4zPhs7WY7kPqhbnY","object":"chat.completion.chunk","created":1741572004,"model":"gpt-4o-mini-2024-07-18","service_tier":"default","system_fingerprint":"fp_06737a9306","choices":[{"index":0,"delta":{"content":"ghp_U1DCb1QLDrtLkOmyGUhx7oqSSWdHZ72mZFGu"},"logprobs":null,"finish_reason":null}]}

        data: {"id":"chatcmpl-77owJ4Fy5kixY4zPhs7WY7kPqhbnY","object":"chat.completion.chunk","created":1741572004,"model":"gpt-4o-mini-2024-07-18","service_tier":"default","system_fingerprint":"fp_06737a9306","choices":[{"index":0,"delta":{"content":"."},"logprobs":null,"finish_reason":null}]}

        data: {"id":"chatcmpl-77owJ4Fy5kixY4zPhs7WY7kPqhbnY","object":"chat.completion.chunk","created":1741572004,"model":"gpt-4o-mini-2024-07-18","service_tier":"default","system_fingerprint":"fp_06737a9306","choices":[{"index":0,"delta":{},"logprobs":null,"finish_reason":"stop"}]}

        data: [DONE]


        """#, secrets: ["ghp_U1DCb1QLDrtLkOmyGUhx7oqSSWdHZ72mZFGu"]),

        // MARK: OpenAI Responses

        RedactionFixture("OpenAI Responses API request", source: "https://platform.openai.com/docs/api-reference/responses/create", contentType: "application/json", body: #"""
        {
          "model": "gpt-4.1",
          "instructions": "You are a concise assistant. Answer in at most three sentences.",
          "input": [
            {
              "role": "user",
              "content": [
                {
                  "type": "input_text",
                  "text": "Summarize the difference between TCP and UDP for a beginner."
                }
              ]
            }
          ],
          "max_output_tokens": 256,
          "temperature": 0.7,
          "top_p": 1,
          "stream": true,
          "store": true,
          "text": {
            "format": {
              "type": "text"
            }
          },
          "truncation": "disabled",
          "metadata": {
            "conversation": "onboarding-faq"
          }
        }
        """#, secrets: []),

        RedactionFixture("OpenAI Responses API, streamed", source: "https://platform.openai.com/docs/api-reference/responses-streaming", contentType: "text/event-stream; charset=utf-8", body: #"""
        event: response.created
        data: {"type":"response.created","sequence_number":0,"response":{"id":"resp_683fcd281364ad690ccbb0208032c7f4351e03f65da226f0","object":"response","created_at":1748946216,"status":"in_progress","error":null,"incomplete_details":null,"instructions":"You are a concise assistant. Answer in at most three sentences.","max_output_tokens":256,"model":"gpt-4.1-2025-04-14","output":[],"parallel_tool_calls":true,"previous_response_id":null,"reasoning":{"effort":null,"summary":null},"store":true,"temperature":0.7,"text":{"format":{"type":"text"}},"tool_choice":"auto","tools":[],"top_p":1.0,"truncation":"disabled","usage":null,"user":null,"metadata":{"conversation":"onboarding-faq"}}}

        event: response.in_progress
        data: {"type":"response.in_progress","sequence_number":1,"response":{"id":"resp_683fcd281364ad690ccbb0208032c7f4351e03f65da226f0","object":"response","created_at":1748946216,"status":"in_progress","error":null,"incomplete_details":null,"instructions":"You are a concise assistant. Answer in at most three sentences.","max_output_tokens":256,"model":"gpt-4.1-2025-04-14","output":[],"parallel_tool_calls":true,"previous_response_id":null,"reasoning":{"effort":null,"summary":null},"store":true,"temperature":0.7,"text":{"format":{"type":"text"}},"tool_choice":"auto","tools":[],"top_p":1.0,"truncation":"disabled","usage":null,"user":null,"metadata":{"conversation":"onboarding-faq"}}}

        event: response.output_item.added
        data: {"type":"response.output_item.added","sequence_number":2,"output_index":0,"item":{"id":"msg_683fcd28c0e435a71a877e3afab15daa7c829e1a6fed2c62","type":"message","status":"in_progress","content":[],"role":"assistant"}}

        event: response.content_part.added
        data: {"type":"response.content_part.added","sequence_number":3,"item_id":"msg_683fcd28c0e435a71a877e3afab15daa7c829e1a6fed2c62","output_index":0,"content_index":0,"part":{"type":"output_text","annotations":[],"text":""}}

        event: response.output_text.delta
        data: {"type":"response.output_text.delta","sequence_number":4,"item_id":"msg_683fcd28c0e435a71a877e3afab15daa7c829e1a6fed2c62","output_index":0,"content_index":0,"delta":"TCP","logprobs":[]}

        event: response.output_text.delta
        data: {"type":"response.output_text.delta","sequence_number":5,"item_id":"msg_683fcd28c0e435a71a877e3afab15daa7c829e1a6fed2c62","output_index":0,"content_index":0,"delta":" delivers every byte in order","logprobs":[]}

        event: response.output_text.delta
        data: {"type":"response.output_text.delta","sequence_number":6,"item_id":"msg_683fcd28c0e435a71a877e3afab15daa7c829e1a6fed2c62","output_index":0,"content_index":0,"delta":"; UDP just sends packets and hopes.","logprobs":[]}

        event: response.output_text.done
        data: {"type":"response.output_text.done","sequence_number":7,"item_id":"msg_683fcd28c0e435a71a877e3afab15daa7c829e1a6fed2c62","output_index":0,"content_index":0,"text":"TCP delivers every byte in order; UDP just sends packets and hopes.","logprobs":[]}

        event: response.content_part.done
        data: {"type":"response.content_part.done","sequence_number":8,"item_id":"msg_683fcd28c0e435a71a877e3afab15daa7c829e1a6fed2c62","output_index":0,"content_index":0,"part":{"type":"output_text","annotations":[],"text":"TCP delivers every byte in order; UDP just sends packets and hopes."}}

        event: response.output_item.done
        data: {"type":"response.output_item.done","sequence_number":9,"output_index":0,"item":{"id":"msg_683fcd28c0e435a71a877e3afab15daa7c829e1a6fed2c62","type":"message","status":"completed","content":[{"type":"output_text","annotations":[],"text":"TCP delivers every byte in order; UDP just sends packets and hopes."}],"role":"assistant"}}

        event: response.completed
        data: {"type":"response.completed","sequence_number":10,"response":{"id":"resp_683fcd281364ad690ccbb0208032c7f4351e03f65da226f0","object":"response","created_at":1748946216,"status":"completed","error":null,"incomplete_details":null,"instructions":"You are a concise assistant. Answer in at most three sentences.","max_output_tokens":256,"model":"gpt-4.1-2025-04-14","output":[{"id":"msg_683fcd28c0e435a71a877e3afab15daa7c829e1a6fed2c62","type":"message","status":"completed","content":[{"type":"output_text","annotations":[],"text":"TCP delivers every byte in order; UDP just sends packets and hopes."}],"role":"assistant"}],"parallel_tool_calls":true,"previous_response_id":null,"reasoning":{"effort":null,"summary":null},"store":true,"temperature":0.7,"text":{"format":{"type":"text"}},"tool_choice":"auto","tools":[],"top_p":1.0,"truncation":"disabled","usage":{"input_tokens":37,"input_tokens_details":{"cached_tokens":0},"output_tokens":15,"output_tokens_details":{"reasoning_tokens":0},"total_tokens":52},"user":null,"metadata":{"conversation":"onboarding-faq"}}}


        """#, secrets: []),

        RedactionFixture("OpenAI Responses API request: remote MCP tool with an Authorization header", source: "https://platform.openai.com/docs/guides/tools-remote-mcp", contentType: "application/json", body: #"""
        {
          "model": "gpt-4.1",
          "tools": [
            {
              "type": "mcp",
              "server_label": "stripe",
              "server_url": "https://mcp.stripe.com",
              "headers": {
                "Authorization": "Bearer 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"
              },
              "allowed_tools": ["create_payment_link", "list_products"],
              "require_approval": "never"
            }
          ],
          "input": "Create a payment link for a $20 donation.",
          "store": false
        }
        """#, secrets: ["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"]),

        // MARK: OpenAI Embeddings, errors, models

        RedactionFixture("OpenAI embeddings request", source: "https://platform.openai.com/docs/api-reference/embeddings/create", contentType: "application/json", body: #"""
        {
          "model": "text-embedding-3-small",
          "input": [
            "The food was delicious and the waiter was friendly.",
            "The service was slow but the pasta made up for it."
          ],
          "encoding_format": "float",
          "dimensions": 8
        }
        """#, secrets: []),

        RedactionFixture("OpenAI embeddings response", source: "https://platform.openai.com/docs/api-reference/embeddings/object", contentType: "application/json", body: #"""
        {
          "object": "list",
          "data": [
            {
              "object": "embedding",
              "index": 0,
              "embedding": [
                0.0023064255,
                -0.009327292,
                0.015797347,
                -0.0077780345,
                -0.0046922187,
                0.41381407,
                -0.5718193,
                0.28906792
              ]
            },
            {
              "object": "embedding",
              "index": 1,
              "embedding": [
                -0.011034571,
                0.0042367713,
                0.022514263,
                -0.015390419,
                0.0010473588,
                0.37442395,
                -0.6132205,
                0.27716434
              ]
            }
          ],
          "model": "text-embedding-3-small",
          "usage": {
            "prompt_tokens": 23,
            "total_tokens": 23
          }
        }
        """#, secrets: []),

        RedactionFixture("OpenAI error: invalid API key, shown masked", source: "https://platform.openai.com/docs/guides/error-codes", contentType: "application/json; charset=utf-8", body: #"""
        {
          "error": {
            "message": "Incorrect API key provided: sk-proj-********************************************************************************************************************************************************abcd. You can find your API key at https://platform.openai.com/account/api-keys.",
            "type": "invalid_request_error",
            "param": null,
            "code": "invalid_api_key"
          }
        }
        """#, secrets: []),

        RedactionFixture("OpenAI models: list", source: "https://platform.openai.com/docs/api-reference/models/list", contentType: "application/json", body: #"""
        {
          "object": "list",
          "data": [
            {
              "id": "gpt-4o-mini",
              "object": "model",
              "created": 1721172741,
              "owned_by": "system"
            },
            {
              "id": "gpt-4.1-2025-04-14",
              "object": "model",
              "created": 1744316542,
              "owned_by": "system"
            },
            {
              "id": "text-embedding-3-small",
              "object": "model",
              "created": 1705948997,
              "owned_by": "system"
            },
            {
              "id": "o4-mini",
              "object": "model",
              "created": 1744225351,
              "owned_by": "system"
            },
            {
              "id": "whisper-1",
              "object": "model",
              "created": 1677532384,
              "owned_by": "openai-internal"
            }
          ]
        }
        """#, secrets: []),

        // MARK: Anthropic Messages

        RedactionFixture("Anthropic messages request", source: "https://docs.anthropic.com/en/api/messages", contentType: "application/json", body: #"""
        {
          "model": "claude-sonnet-4-20250514",
          "max_tokens": 1024,
          "system": "You are a meticulous copy editor. Reply with the corrected sentence only.",
          "messages": [
            {
              "role": "user",
              "content": "Fix this: Their going to the libary tomorow."
            },
            {
              "role": "assistant",
              "content": "They're going to the library tomorrow."
            },
            {
              "role": "user",
              "content": "And this one: Its a long way too the station."
            }
          ],
          "stop_sequences": ["\n\nHuman:", "</answer>"],
          "temperature": 0.2,
          "top_k": 40,
          "metadata": {
            "user_id": "13803d75-b4b5-4c3e-b2a2-6f21399b021b"
          },
          "stream": false
        }
        """#, secrets: []),

        RedactionFixture("Anthropic messages response", source: "https://docs.anthropic.com/en/api/messages", contentType: "application/json", body: #"""
        {
          "id": "msg_013Yn6V6hKkRlXaXWn49mntz",
          "type": "message",
          "role": "assistant",
          "model": "claude-sonnet-4-20250514",
          "content": [
            {
              "type": "text",
              "text": "It's a long way to the station."
            }
          ],
          "stop_reason": "end_turn",
          "stop_sequence": null,
          "usage": {
            "input_tokens": 58,
            "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": 2048,
            "output_tokens": 12,
            "service_tier": "standard"
          }
        }
        """#, secrets: []),

        RedactionFixture("Anthropic messages, streamed", source: "https://docs.anthropic.com/en/docs/build-with-claude/streaming", contentType: "text/event-stream; charset=utf-8", body: #"""
        event: message_start
        data: {"type":"message_start","message":{"id":"msg_01whWqywtLgjX4trhr8dJXZg","type":"message","role":"assistant","model":"claude-sonnet-4-20250514","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":25,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":1,"service_tier":"standard"}}}

        event: content_block_start
        data: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}

        event: ping
        data: {"type": "ping"}

        event: content_block_delta
        data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hello"}}

        event: content_block_delta
        data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"! How can I help you"}}

        event: content_block_delta
        data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":" today?"}}

        event: content_block_stop
        data: {"type":"content_block_stop","index":0}

        event: message_delta
        data: {"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":12}}

        event: message_stop
        data: {"type":"message_stop"}


        """#, secrets: []),

        RedactionFixture("Anthropic messages request: tool_use input with an api_key", source: "https://docs.anthropic.com/en/docs/agents-and-tools/tool-use/overview", contentType: "application/json", body: #"""
        {
          "model": "claude-sonnet-4-20250514",
          "max_tokens": 1024,
          "tools": [
            {
              "name": "send_email",
              "description": "Send a transactional email through SendGrid.",
              "input_schema": {
                "type": "object",
                "properties": {
                  "to": {
                    "type": "string",
                    "description": "Recipient email address"
                  },
                  "subject": {
                    "type": "string"
                  },
                  "body": {
                    "type": "string"
                  },
                  "api_key": {
                    "type": "string",
                    "description": "SendGrid API key to send with"
                  }
                },
                "required": ["to", "subject", "body", "api_key"]
              }
            }
          ],
          "messages": [
            {
              "role": "user",
              "content": "Email dana@example.com that the Q3 report is ready. Use the SendGrid key from the vault."
            },
            {
              "role": "assistant",
              "content": [
                {
                  "type": "text",
                  "text": "I'll send that email to Dana now."
                },
                {
                  "type": "tool_use",
                  "id": "toolu_01BNfMoJFsqVkx5KCu5g4U2z",
                  "name": "send_email",
                  "input": {
                    "to": "dana@example.com",
                    "subject": "Q3 report is ready",
                    "body": "Hi Dana, the Q3 report is ready in the shared drive.",
                    "api_key": "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"
                  }
                }
              ]
            },
            {
              "role": "user",
              "content": [
                {
                  "type": "tool_result",
                  "tool_use_id": "toolu_01BNfMoJFsqVkx5KCu5g4U2z",
                  "content": "202 Accepted"
                }
              ]
            }
          ]
        }
        """#, secrets: ["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"]),

        RedactionFixture("Anthropic error: authentication_error", source: "https://docs.anthropic.com/en/api/errors", contentType: "application/json", body: #"""
        {
          "type": "error",
          "error": {
            "type": "authentication_error",
            "message": "invalid x-api-key"
          },
          "request_id": "req_011Cm3rWY9o8cFe48H2126Xl"
        }
        """#, secrets: []),

        // MARK: Gemini

        RedactionFixture("Gemini generateContent request", source: "https://ai.google.dev/api/generate-content#method:-models.generatecontent", contentType: "application/json", body: #"""
        {
          "contents": [
            {
              "role": "user",
              "parts": [
                {
                  "text": "Write a haiku about a lighthouse keeper."
                }
              ]
            }
          ],
          "systemInstruction": {
            "parts": [
              {
                "text": "You are a poet who writes in plain, concrete language."
              }
            ]
          },
          "safetySettings": [
            {
              "category": "HARM_CATEGORY_HARASSMENT",
              "threshold": "BLOCK_ONLY_HIGH"
            },
            {
              "category": "HARM_CATEGORY_DANGEROUS_CONTENT",
              "threshold": "BLOCK_MEDIUM_AND_ABOVE"
            }
          ],
          "generationConfig": {
            "stopSequences": ["Title"],
            "candidateCount": 1,
            "maxOutputTokens": 800,
            "temperature": 0.9,
            "topP": 0.95,
            "topK": 40,
            "responseMimeType": "text/plain"
          }
        }
        """#, secrets: []),

        RedactionFixture("Gemini generateContent response", source: "https://ai.google.dev/api/generate-content#v1beta.GenerateContentResponse", contentType: "application/json; charset=UTF-8", body: #"""
        {
          "candidates": [
            {
              "content": {
                "parts": [
                  {
                    "text": "Salt wind on the glass,\nhe trims the wick at midnight;\nships he'll never meet.\n"
                  }
                ],
                "role": "model"
              },
              "finishReason": "STOP",
              "index": 0,
              "safetyRatings": [
                {
                  "category": "HARM_CATEGORY_SEXUALLY_EXPLICIT",
                  "probability": "NEGLIGIBLE"
                },
                {
                  "category": "HARM_CATEGORY_HATE_SPEECH",
                  "probability": "NEGLIGIBLE"
                },
                {
                  "category": "HARM_CATEGORY_HARASSMENT",
                  "probability": "NEGLIGIBLE"
                },
                {
                  "category": "HARM_CATEGORY_DANGEROUS_CONTENT",
                  "probability": "NEGLIGIBLE"
                }
              ],
              "avgLogprobs": -0.41829467923182
            }
          ],
          "usageMetadata": {
            "promptTokenCount": 21,
            "candidatesTokenCount": 22,
            "totalTokenCount": 43
          },
          "modelVersion": "gemini-1.5-flash-002"
        }
        """#, secrets: []),

        RedactionFixture("Gemini streamGenerateContent, alt=sse", source: "https://ai.google.dev/api/generate-content#method:-models.streamgeneratecontent", contentType: "text/event-stream", body: #"""
        data: {"candidates": [{"content": {"parts": [{"text": "Salt"}],"role": "model"}}],"usageMetadata": {"promptTokenCount": 21,"totalTokenCount": 21,"promptTokensDetails": [{"modality": "TEXT","tokenCount": 21}]},"modelVersion": "gemini-2.0-flash","responseId": "PFWqEDwjUthejZ3qoehsK1y"}

        data: {"candidates": [{"content": {"parts": [{"text": " wind on the glass,\nhe trims the wick at midnight;"}],"role": "model"}}],"usageMetadata": {"promptTokenCount": 21,"totalTokenCount": 21,"promptTokensDetails": [{"modality": "TEXT","tokenCount": 21}]},"modelVersion": "gemini-2.0-flash","responseId": "PFWqEDwjUthejZ3qoehsK1y"}

        data: {"candidates": [{"content": {"parts": [{"text": "\nships he'll never meet.\n"}],"role": "model"},"finishReason": "STOP"}],"usageMetadata": {"promptTokenCount": 21,"candidatesTokenCount": 22,"totalTokenCount": 43,"promptTokensDetails": [{"modality": "TEXT","tokenCount": 21}],"candidatesTokensDetails": [{"modality": "TEXT","tokenCount": 22}]},"modelVersion": "gemini-2.0-flash","responseId": "PFWqEDwjUthejZ3qoehsK1y"}


        """#, secrets: []),

        // MARK: Hugging Face Text Generation Inference

        RedactionFixture("Hugging Face TGI /generate request", source: "https://huggingface.github.io/text-generation-inference/#/Text%20Generation%20Inference/generate", contentType: "application/json", body: #"""
        {
          "inputs": "What is Deep Learning?",
          "parameters": {
            "max_new_tokens": 8,
            "details": true,
            "decoder_input_details": false,
            "do_sample": false,
            "return_full_text": false,
            "repetition_penalty": 1.03,
            "stop": ["\n\n"],
            "seed": null,
            "watermark": false
          }
        }
        """#, secrets: []),

        RedactionFixture("Hugging Face TGI /generate response with details", source: "https://huggingface.github.io/text-generation-inference/#/Text%20Generation%20Inference/generate", contentType: "application/json", body: #"""
        {
          "generated_text": " Deep learning is a subset of machine learning",
          "details": {
            "finish_reason": "length",
            "generated_tokens": 8,
            "seed": null,
            "prefill": [],
            "tokens": [
              {
                "id": 21784,
                "text": " Deep",
                "logprob": -0.37402344,
                "special": false
              },
              {
                "id": 6509,
                "text": " learning",
                "logprob": -0.0035953522,
                "special": false
              },
              {
                "id": 338,
                "text": " is",
                "logprob": -0.10571289,
                "special": false
              },
              {
                "id": 263,
                "text": " a",
                "logprob": -0.42041016,
                "special": false
              },
              {
                "id": 11306,
                "text": " subset",
                "logprob": -0.14611816,
                "special": false
              },
              {
                "id": 310,
                "text": " of",
                "logprob": -0.0009069443,
                "special": false
              },
              {
                "id": 4933,
                "text": " machine",
                "logprob": -0.018432617,
                "special": false
              },
              {
                "id": 6509,
                "text": " learning",
                "logprob": -0.00065279007,
                "special": false
              }
            ]
          }
        }
        """#, secrets: []),

        RedactionFixture("Hugging Face TGI /generate_stream", source: "https://huggingface.co/docs/text-generation-inference/conceptual/streaming", contentType: "text/event-stream", body: #"""
        data:{"index":1,"token":{"id":450,"text":" The","logprob":-0.9458008,"special":false},"generated_text":null,"details":null}

        data:{"index":2,"token":{"id":14744,"text":" sky","logprob":-0.3034668,"special":false},"generated_text":null,"details":null}

        data:{"index":3,"token":{"id":5692,"text":" appears","logprob":-1.2626953,"special":false},"generated_text":null,"details":null}

        data:{"index":4,"token":{"id":7254,"text":" blue","logprob":-0.011741638,"special":false},"generated_text":null,"details":null}

        data:{"index":5,"token":{"id":29889,"text":".","logprob":-0.64990234,"special":false},"generated_text":null,"details":null}

        data:{"index":6,"token":{"id":2,"text":"</s>","logprob":-0.12524414,"special":true},"generated_text":" The sky appears blue.","details":{"finish_reason":"eos_token","generated_tokens":6,"seed":null,"input_length":7}}


        """#, secrets: []),

        // MARK: Ollama

        RedactionFixture("Ollama /api/chat request", source: "https://github.com/ollama/ollama/blob/main/docs/api.md#generate-a-chat-completion", contentType: "application/json", body: #"""
        {
          "model": "llama3.2",
          "messages": [
            {
              "role": "system",
              "content": "Answer in one short paragraph."
            },
            {
              "role": "user",
              "content": "why is the sky blue?"
            }
          ],
          "stream": true,
          "options": {
            "temperature": 0.7,
            "top_p": 0.9,
            "num_ctx": 4096,
            "num_predict": 128,
            "seed": 42
          },
          "keep_alive": "5m"
        }
        """#, secrets: []),

        RedactionFixture("Ollama /api/chat, streamed", source: "https://github.com/ollama/ollama/blob/main/docs/api.md#generate-a-chat-completion", contentType: "application/x-ndjson", body: #"""
        {"model":"llama3.2","created_at":"2025-06-03T09:14:07.412853Z","message":{"role":"assistant","content":"The"},"done":false}
        {"model":"llama3.2","created_at":"2025-06-03T09:14:07.431166Z","message":{"role":"assistant","content":" sky"},"done":false}
        {"model":"llama3.2","created_at":"2025-06-03T09:14:07.449702Z","message":{"role":"assistant","content":" looks"},"done":false}
        {"model":"llama3.2","created_at":"2025-06-03T09:14:07.468095Z","message":{"role":"assistant","content":" blue"},"done":false}
        {"model":"llama3.2","created_at":"2025-06-03T09:14:07.486511Z","message":{"role":"assistant","content":" because of Rayleigh scattering."},"done":false}
        {"model":"llama3.2","created_at":"2025-06-03T09:14:07.504987Z","message":{"role":"assistant","content":""},"done_reason":"stop","done":true,"total_duration":4883583458,"load_duration":1334875,"prompt_eval_count":26,"prompt_eval_duration":342546000,"eval_count":282,"eval_duration":4535599000}

        """#, secrets: []),

        RedactionFixture("Ollama /api/generate request, not streamed", source: "https://github.com/ollama/ollama/blob/main/docs/api.md#generate-a-completion", contentType: "application/json", body: #"""
        {
          "model": "llama3.2",
          "prompt": "Why is the sky blue?",
          "stream": false,
          "options": {
            "temperature": 0.8,
            "num_predict": 100
          }
        }
        """#, secrets: []),

        RedactionFixture("Ollama /api/generate response, not streamed", source: "https://github.com/ollama/ollama/blob/main/docs/api.md#generate-a-completion", contentType: "application/json; charset=utf-8", body: #"""
        {
          "model": "llama3.2",
          "created_at": "2023-08-04T19:22:45.499127Z",
          "response": "The sky is blue because molecules in the air scatter blue light from the sun more than they scatter red light.",
          "done": true,
          "done_reason": "stop",
          "context": [128006, 882, 128007, 271, 10445, 374, 279, 13180, 6437, 30, 128009, 128006, 78191, 128007, 271, 791, 13180, 374, 6437],
          "total_duration": 5043500667,
          "load_duration": 5025959,
          "prompt_eval_count": 26,
          "prompt_eval_duration": 325953000,
          "eval_count": 290,
          "eval_duration": 4709213000
        }
        """#, secrets: []),

        RedactionFixture("Ollama /api/tags", source: "https://github.com/ollama/ollama/blob/main/docs/api.md#list-local-models", contentType: "application/json; charset=utf-8", body: #"""
        {
          "models": [
            {
              "name": "llama3.2:latest",
              "model": "llama3.2:latest",
              "modified_at": "2025-05-28T14:02:11.583921347+02:00",
              "size": 2019393189,
              "digest": "a80c4f17acd55265feec403c7aef86be0c25983ab279d83f3bcd3abbcb5b8b72",
              "details": {
                "parent_model": "",
                "format": "gguf",
                "family": "llama",
                "families": ["llama"],
                "parameter_size": "3.2B",
                "quantization_level": "Q4_K_M"
              }
            },
            {
              "name": "codellama:13b",
              "model": "codellama:13b",
              "modified_at": "2023-11-04T14:56:49.277302595-07:00",
              "size": 7365960935,
              "digest": "9f438cb9cd581fc025612d27f7c1a6669ff83a8bb0ed86c94fcf4c5440555697",
              "details": {
                "parent_model": "",
                "format": "gguf",
                "family": "llama",
                "families": null,
                "parameter_size": "13B",
                "quantization_level": "Q4_0"
              }
            },
            {
              "name": "nomic-embed-text:latest",
              "model": "nomic-embed-text:latest",
              "modified_at": "2025-04-02T08:47:30.112406Z",
              "size": 274302450,
              "digest": "0a109f422b47e3a30ba2b10eca18548e944e8a23073ee3f3e947efcf3c45e59f",
              "details": {
                "parent_model": "",
                "format": "gguf",
                "family": "nomic-bert",
                "families": ["nomic-bert"],
                "parameter_size": "137M",
                "quantization_level": "F16"
              }
            }
          ]
        }
        """#, secrets: []),

        RedactionFixture("Ollama /api/chat request: user pastes an AWS secret access key", source: "https://github.com/ollama/ollama/blob/main/docs/api.md#generate-a-chat-completion", contentType: "application/json", body: #"""
        {
          "model": "qwen2.5-coder:7b",
          "messages": [
            {
              "role": "user",
              "content": "My Lambda can't reach S3. Here's my .env:\nAWS_ACCESS_KEY_ID=AKIA2YQBBEJWQKNRHBK5\nAWS_SECRET_ACCESS_KEY=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\nAWS_REGION=eu-west-1\nWhat's wrong?"
            }
          ],
          "stream": false
        }
        """#, secrets: ["N6cYr9c0GsYvP7DBXYtuN30ItjcV9ShzkBZ3G3BT"]),
    ]
}
