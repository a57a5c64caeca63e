//! A stand-in for the model APIs the agents call: Anthropic's Messages API
//! (`POST /v1/messages`, Claude Code), OpenAI's Responses API
//! (`POST /v1/responses`, Codex) and Chat Completions API
//! (`POST /v1/chat/completions`, opencode, Copilot CLI and Qwen Code
//! through their OpenAI-compatible providers) and Gemini's
//! `streamGenerateContent` (Gemini CLI). Streaming (SSE) answers
//! from a script, minimal answers to side requests, every request recorded.

use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

use serde_json::{Value, json};

/// One content block the mock model answers with.
#[derive(Clone, Debug)]
pub enum Block {
    /// Text.
    Text(String),
    /// A tool call.
    Tool {
        /// The tool's name.
        name: String,
        /// Its input.
        input: Value,
    },
}

impl Block {
    /// A text block.
    pub fn text(text: &str) -> Self {
        Self::Text(text.to_owned())
    }

    /// A tool call.
    pub fn tool(name: &str, input: Value) -> Self {
        Self::Tool {
            name: name.to_owned(),
            input,
        }
    }
}

/// What the mock model says. A conversation is recognised by a marker in
/// its first user message (the prompt of `claude -p`, or the prompt the
/// main agent gave a sub-agent); its turn is the number of assistant
/// messages already in the request. Past the script's end it says "DONE".
#[derive(Clone, Debug, Default)]
pub struct Script {
    conversations: Vec<(String, Vec<Vec<Block>>)>,
}

impl Script {
    /// A script with no conversations.
    pub fn new() -> Self {
        Self::default()
    }

    /// The turns of the conversation whose first user message holds `marker`.
    pub fn conversation(mut self, marker: &str, turns: Vec<Vec<Block>>) -> Self {
        self.conversations.push((marker.to_owned(), turns));
        self
    }

    fn answer(&self, request: &Value) -> (Option<String>, Vec<Block>) {
        // Messages and Chat Completions APIs: `messages`; Responses API:
        // `input` items; Gemini: `contents`.
        let items = request["messages"]
            .as_array()
            .or(request["input"].as_array())
            .or(request["contents"].as_array())
            .cloned()
            .unwrap_or_default();
        let users: Vec<String> = items
            .iter()
            .filter(|m| m["role"] == "user")
            .map(text_of_message)
            .collect();
        // The first user message that holds a marker (Codex sends its
        // AGENTS.md and environment as user messages before the prompt).
        let first = users
            .iter()
            .find(|text| {
                self.conversations
                    .iter()
                    .any(|(m, _)| text.contains(m.as_str()))
            })
            .cloned()
            .unwrap_or_default();
        // Turns are counted from the message that holds the marker: Qwen
        // Code opens with a scripted exchange (its environment as a user
        // message, an assistant's "Got it") before the prompt.
        let start = items
            .iter()
            .position(|m| m["role"] == "user" && !first.is_empty() && text_of_message(m) == first)
            .unwrap_or(0);
        let turn = items[start..]
            .iter()
            .filter(|m| {
                m["role"] == "assistant"
                    || m["role"] == "model"
                    || matches!(
                        m["type"].as_str(),
                        Some("function_call" | "custom_tool_call" | "tool_search_call")
                    )
            })
            .count();
        // The longest marker wins, so `X:one` is not taken for `X:o`.
        let mut candidates: Vec<&(String, Vec<Vec<Block>>)> = self
            .conversations
            .iter()
            .filter(|(marker, _)| first.contains(marker.as_str()))
            .collect();
        candidates.sort_by_key(|(marker, _)| std::cmp::Reverse(marker.len()));
        // `{{SPAWNED_AGENT}}` in a tool input: the id of the sub-agent the
        // conversation last spawned (Codex's `spawn_agent` answers
        // `{"agent_id": ...}`), so `wait_agent` can name it.
        let spawned = items
            .iter()
            .rev()
            .filter(|i| i["type"] == "function_call_output")
            .filter_map(|i| i["output"].as_str())
            .filter_map(|o| serde_json::from_str::<Value>(o).ok())
            .find_map(|o| o["agent_id"].as_str().map(str::to_owned))
            .unwrap_or_default();
        let fill = |block: Block| match block {
            Block::Tool { name, input } => Block::Tool {
                name,
                input: serde_json::from_str(
                    &input.to_string().replace("{{SPAWNED_AGENT}}", &spawned),
                )
                .unwrap_or(input),
            },
            text => text,
        };
        match candidates.first() {
            Some((marker, turns)) => (
                Some(marker.clone()),
                turns
                    .get(turn)
                    .cloned()
                    .unwrap_or_else(|| vec![Block::text("DONE")])
                    .into_iter()
                    .map(fill)
                    .collect(),
            ),
            None => (None, vec![Block::text("ok")]),
        }
    }
}

/// One request the mock received.
#[derive(Clone, Debug)]
pub struct Recorded {
    /// The URL path (with its query).
    pub path: String,
    /// The JSON body.
    pub body: Value,
    /// The script conversation it was answered from, if any.
    pub conversation: Option<String>,
}

/// The mock server; stops when dropped.
pub struct MockApi {
    url: String,
    requests: Arc<Mutex<Vec<Recorded>>>,
    server: Arc<tiny_http::Server>,
    thread: Option<JoinHandle<()>>,
}

impl MockApi {
    /// Starts the mock on a free port of 127.0.0.1.
    pub fn start(script: Script) -> Self {
        let server = Arc::new(tiny_http::Server::http("127.0.0.1:0").expect("bind 127.0.0.1"));
        let port = server.server_addr().to_ip().expect("an IP address").port();
        let requests = Arc::new(Mutex::new(Vec::new()));
        let (srv, recorded) = (Arc::clone(&server), Arc::clone(&requests));
        let thread = std::thread::spawn(move || {
            let mut counter = 0u64;
            for mut request in srv.incoming_requests() {
                counter += 1;
                let mut body = String::new();
                let _ = request.as_reader().read_to_string(&mut body);
                let body: Value = serde_json::from_str(&body).unwrap_or(Value::Null);
                let path = request.url().to_owned();
                let post = request.method() == &tiny_http::Method::Post;
                let (conversation, reply) = if path.contains("count_tokens") {
                    (None, Reply::Json(json!({"input_tokens": 100})))
                } else if post && path.starts_with("/v1/messages") {
                    let (conversation, blocks) = script.answer(&body);
                    let id = format!("{:02}", counter);
                    let stream = body["stream"] == true;
                    (conversation, Reply::message(&body, &blocks, &id, stream))
                } else if post && path.starts_with("/v1/responses") {
                    let (conversation, blocks) = script.answer(&body);
                    (
                        conversation,
                        Reply::response(&blocks, &format!("{counter:02}")),
                    )
                } else if post && path.starts_with("/v1/chat/completions") {
                    // A request without tools is a side request (opencode's
                    // session title from its small model): a plain answer.
                    let (conversation, blocks) = if body.get("tools").is_some() {
                        script.answer(&body)
                    } else {
                        (None, vec![Block::text("E2E title")])
                    };
                    let model = body["model"].as_str().unwrap_or("mock-model");
                    (
                        conversation,
                        Reply::chat(&blocks, model, &format!("{counter:02}")),
                    )
                } else if post && path.contains(":streamGenerateContent") {
                    let (conversation, blocks) = script.answer(&body);
                    (conversation, Reply::gemini(&blocks))
                } else if path.starts_with("/v1/models") {
                    (
                        None,
                        Reply::Json(json!({"object": "list", "data": [], "models": []})),
                    )
                } else {
                    (None, Reply::Json(json!({})))
                };
                recorded.lock().expect("lock").push(Recorded {
                    path,
                    body,
                    conversation,
                });
                let _ = match reply {
                    Reply::Json(value) => request.respond(
                        tiny_http::Response::from_data(value.to_string())
                            .with_header(header("content-type", "application/json")),
                    ),
                    Reply::Sse(text) => request.respond(
                        tiny_http::Response::from_data(text)
                            .with_header(header("content-type", "text/event-stream")),
                    ),
                };
            }
        });
        Self {
            url: format!("http://127.0.0.1:{port}"),
            requests,
            server,
            thread: Some(thread),
        }
    }

    /// `ANTHROPIC_BASE_URL` for the agent.
    pub fn base_url(&self) -> &str {
        &self.url
    }

    /// Every request so far.
    pub fn requests(&self) -> Vec<Recorded> {
        self.requests.lock().expect("lock").clone()
    }

    /// The model requests of one script conversation, in order.
    pub fn conversation(&self, marker: &str) -> Vec<Value> {
        self.requests()
            .into_iter()
            .filter(|r| r.conversation.as_deref() == Some(marker))
            .map(|r| r.body)
            .collect()
    }
}

impl Drop for MockApi {
    fn drop(&mut self) {
        self.server.unblock();
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

fn header(name: &str, value: &str) -> tiny_http::Header {
    tiny_http::Header::from_bytes(name.as_bytes(), value.as_bytes()).expect("a valid header")
}

enum Reply {
    Json(Value),
    Sse(String),
}

impl Reply {
    fn message(request: &Value, blocks: &[Block], id: &str, stream: bool) -> Self {
        let model = request["model"].as_str().unwrap_or("claude-mock");
        let usage = json!({"input_tokens": 50, "output_tokens": 10});
        let tool_id = |i: usize| format!("toolu_e2e_{id}_{i}");
        let stop = if blocks.iter().any(|b| matches!(b, Block::Tool { .. })) {
            "tool_use"
        } else {
            "end_turn"
        };
        if !stream {
            let content: Vec<Value> = blocks
                .iter()
                .enumerate()
                .map(|(i, b)| match b {
                    Block::Text(t) => json!({"type": "text", "text": t}),
                    Block::Tool { name, input } => {
                        json!({"type": "tool_use", "id": tool_id(i), "name": name, "input": input})
                    }
                })
                .collect();
            return Self::Json(json!({
                "id": format!("msg_e2e_{id}"), "type": "message", "role": "assistant",
                "model": model, "content": content, "stop_reason": stop,
                "stop_sequence": null, "usage": usage,
            }));
        }
        let mut events = vec![(
            "message_start",
            json!({"type": "message_start", "message": {
                "id": format!("msg_e2e_{id}"), "type": "message", "role": "assistant",
                "model": model, "content": [], "stop_reason": null, "stop_sequence": null,
                "usage": {"input_tokens": 50, "output_tokens": 1}}}),
        )];
        for (i, block) in blocks.iter().enumerate() {
            let (start, delta) = match block {
                Block::Text(text) => (
                    json!({"type": "text", "text": ""}),
                    json!({"type": "text_delta", "text": text}),
                ),
                Block::Tool { name, input } => (
                    json!({"type": "tool_use", "id": tool_id(i), "name": name, "input": {}}),
                    json!({"type": "input_json_delta", "partial_json": input.to_string()}),
                ),
            };
            events.push((
                "content_block_start",
                json!({"type": "content_block_start", "index": i, "content_block": start}),
            ));
            events.push((
                "content_block_delta",
                json!({"type": "content_block_delta", "index": i, "delta": delta}),
            ));
            events.push((
                "content_block_stop",
                json!({"type": "content_block_stop", "index": i}),
            ));
        }
        events.push((
            "message_delta",
            json!({"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": null}, "usage": {"output_tokens": 10}}),
        ));
        events.push(("message_stop", json!({"type": "message_stop"})));
        Self::Sse(
            events
                .into_iter()
                .map(|(name, data)| format!("event: {name}\ndata: {data}\n\n"))
                .collect(),
        )
    }
}

impl Reply {
    /// A Responses API stream: `response.created`, one
    /// `response.output_item.done` per block, `response.completed`. A tool
    /// named `apply_patch` is Codex's freeform tool (`custom_tool_call`
    /// whose `input` is the patch, given as the input's `patch` string);
    /// every other tool is a `function_call` with JSON `arguments`.
    fn response(blocks: &[Block], id: &str) -> Self {
        let mut events =
            vec![json!({"type": "response.created", "response": {"id": format!("resp_e2e_{id}")}})];
        for (i, block) in blocks.iter().enumerate() {
            let call_id = format!("call_e2e_{id}_{i}");
            let item = match block {
                Block::Text(text) => json!({
                    "type": "message", "role": "assistant", "id": format!("msg_e2e_{id}_{i}"),
                    "content": [{"type": "output_text", "text": text, "annotations": []}],
                }),
                Block::Tool { name, input } if name == "apply_patch" => json!({
                    "type": "custom_tool_call", "id": format!("ctc_e2e_{id}_{i}"), "call_id": call_id,
                    "name": name, "input": input["patch"].as_str().unwrap_or_default(),
                }),
                Block::Tool { name, input } if name == "tool_search" => json!({
                    "type": "tool_search_call", "id": format!("tsc_e2e_{id}_{i}"), "call_id": call_id,
                    "status": "completed", "execution": "client", "arguments": input,
                }),
                // `namespace.tool` is a namespaced tool (Codex's `multi_agent_v1`).
                Block::Tool { name, input } => match name.split_once('.') {
                    Some((namespace, tool)) => json!({
                        "type": "function_call", "id": format!("fc_e2e_{id}_{i}"), "call_id": call_id,
                        "name": tool, "namespace": namespace, "arguments": input.to_string(),
                    }),
                    None => json!({
                        "type": "function_call", "id": format!("fc_e2e_{id}_{i}"), "call_id": call_id,
                        "name": name, "arguments": input.to_string(),
                    }),
                },
            };
            events.push(
                json!({"type": "response.output_item.done", "output_index": i, "item": item}),
            );
        }
        events.push(json!({"type": "response.completed", "response": {
            "id": format!("resp_e2e_{id}"),
            "usage": {"input_tokens": 50, "input_tokens_details": {"cached_tokens": 0},
                      "output_tokens": 10, "output_tokens_details": {"reasoning_tokens": 0},
                      "total_tokens": 60},
        }}));
        Self::Sse(
            events
                .into_iter()
                .map(|data| {
                    format!(
                        "event: {}\ndata: {data}\n\n",
                        data["type"].as_str().unwrap_or("")
                    )
                })
                .collect(),
        )
    }
}

impl Reply {
    /// A Chat Completions stream: a role chunk, one chunk per text block
    /// and per tool call (`delta.tool_calls[i]` with the whole arguments),
    /// a last chunk with the finish reason and usage, then `[DONE]`.
    fn chat(blocks: &[Block], model: &str, id: &str) -> Self {
        let chunk = |delta: Value, finish: Value| {
            json!({
                "id": format!("chatcmpl-e2e-{id}"), "object": "chat.completion.chunk",
                "created": 1_795_000_000, "model": model,
                "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
            })
        };
        let mut chunks = vec![chunk(
            json!({"role": "assistant", "content": ""}),
            Value::Null,
        )];
        let mut tools = 0;
        for (i, block) in blocks.iter().enumerate() {
            chunks.push(match block {
                Block::Text(text) => chunk(json!({"content": text}), Value::Null),
                Block::Tool { name, input } => {
                    tools += 1;
                    chunk(
                        json!({"tool_calls": [{
                            "index": tools - 1, "id": format!("call_e2e_{id}_{i}"), "type": "function",
                            "function": {"name": name, "arguments": input.to_string()},
                        }]}),
                        Value::Null,
                    )
                }
            });
        }
        let finish = if tools > 0 { "tool_calls" } else { "stop" };
        let mut last = chunk(json!({}), json!(finish));
        last["usage"] = json!({"prompt_tokens": 50, "completion_tokens": 10, "total_tokens": 60});
        chunks.push(last);
        let mut text: String = chunks
            .into_iter()
            .map(|data| format!("data: {data}\n\n"))
            .collect();
        text.push_str("data: [DONE]\n\n");
        Self::Sse(text)
    }
}

impl Reply {
    /// A `streamGenerateContent?alt=sse` stream: one chunk with every
    /// block as a part (`text` or `functionCall`), finish reason `STOP`.
    fn gemini(blocks: &[Block]) -> Self {
        let parts: Vec<Value> = blocks
            .iter()
            .map(|block| match block {
                Block::Text(text) => json!({"text": text}),
                Block::Tool { name, input } => {
                    json!({"functionCall": {"name": name, "args": input}})
                }
            })
            .collect();
        let chunk = json!({
            "candidates": [{"content": {"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0}],
            "usageMetadata": {"promptTokenCount": 50, "candidatesTokenCount": 10, "totalTokenCount": 60},
        });
        Self::Sse(format!("data: {chunk}\r\n\r\n"))
    }
}

fn text_of_message(message: &Value) -> String {
    // Gemini `contents`: text parts and function responses.
    if let Some(parts) = message["parts"].as_array() {
        return parts
            .iter()
            .map(|p| match (&p["text"], &p["functionResponse"]["response"]) {
                (Value::String(text), _) => text.clone(),
                (_, Value::Null) => String::new(),
                (_, response) => response["output"]
                    .as_str()
                    .map_or_else(|| response.to_string(), str::to_owned),
            })
            .collect::<Vec<_>>()
            .join("\n");
    }
    // Responses API items that are not messages.
    match message["type"].as_str() {
        Some("function_call") => {
            return message["arguments"].as_str().unwrap_or_default().to_owned();
        }
        Some("custom_tool_call") => {
            return message["input"].as_str().unwrap_or_default().to_owned();
        }
        Some("function_call_output" | "custom_tool_call_output") => {
            return match &message["output"] {
                Value::String(text) => text.clone(),
                other => other.to_string(),
            };
        }
        _ => {}
    }
    match &message["content"] {
        Value::String(text) => text.clone(),
        Value::Array(blocks) => blocks
            .iter()
            .map(|b| match b["type"].as_str() {
                Some("text" | "input_text" | "output_text") => {
                    b["text"].as_str().unwrap_or_default().to_owned()
                }
                Some("tool_result") => match &b["content"] {
                    Value::String(t) => t.clone(),
                    Value::Array(parts) => parts
                        .iter()
                        .filter_map(|p| p["text"].as_str())
                        .collect::<Vec<_>>()
                        .join("\n"),
                    other => other.to_string(),
                },
                _ => String::new(),
            })
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

/// The text of the tool results in `messages` (an Anthropic request's
/// `messages`, or a slice of them), in order.
pub fn tool_results_text(messages: &[Value]) -> String {
    let mut text = String::new();
    for message in messages {
        for block in message["content"].as_array().into_iter().flatten() {
            if block["type"] == "tool_result" {
                match &block["content"] {
                    Value::String(t) => text.push_str(t),
                    Value::Array(parts) => parts
                        .iter()
                        .filter_map(|p| p["text"].as_str())
                        .for_each(|t| text.push_str(t)),
                    _ => {}
                }
            }
        }
    }
    text
}

/// Everything the model reads in a request: the system prompt and every
/// message's text and tool results, in order.
pub fn text_of_request(request: &Value) -> String {
    let mut text = match &request["system"] {
        Value::String(s) => s.clone(),
        Value::Array(blocks) => blocks
            .iter()
            .filter_map(|b| b["text"].as_str())
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    };
    for part in request["systemInstruction"]["parts"]
        .as_array()
        .into_iter()
        .flatten()
    {
        text.push_str(part["text"].as_str().unwrap_or_default());
    }
    let items = request["messages"]
        .as_array()
        .or(request["input"].as_array())
        .or(request["contents"].as_array());
    if let Some(instructions) = request["instructions"].as_str() {
        text.push_str(instructions);
    }
    for message in items.into_iter().flatten() {
        text.push('\n');
        text.push_str(&text_of_message(message));
    }
    text
}
