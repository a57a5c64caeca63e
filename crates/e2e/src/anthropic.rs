//! A stand-in for the Anthropic Messages API: streaming (SSE) answers from
//! a script, minimal answers to Claude Code's side requests, every request
//! recorded.

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
        let messages = request["messages"].as_array().cloned().unwrap_or_default();
        let first = messages
            .iter()
            .find(|m| m["role"] == "user")
            .map(text_of_message)
            .unwrap_or_default();
        let turn = messages.iter().filter(|m| m["role"] == "assistant").count();
        // The longest marker wins, so `X:one` is not taken for `X:o`.
        let mut candidates: Vec<&(String, Vec<Vec<Block>>)> = self
            .conversations
            .iter()
            .filter(|(marker, _)| first.contains(marker.as_str()))
            .collect();
        candidates.sort_by_key(|(marker, _)| std::cmp::Reverse(marker.len()));
        match candidates.first() {
            Some((marker, turns)) => (
                Some(marker.clone()),
                turns
                    .get(turn)
                    .cloned()
                    .unwrap_or_else(|| vec![Block::text("DONE")]),
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
pub struct MockAnthropic {
    url: String,
    requests: Arc<Mutex<Vec<Recorded>>>,
    server: Arc<tiny_http::Server>,
    thread: Option<JoinHandle<()>>,
}

impl MockAnthropic {
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
                let (conversation, reply) = if path.contains("count_tokens") {
                    (None, Reply::Json(json!({"input_tokens": 100})))
                } else if request.method() == &tiny_http::Method::Post
                    && path.starts_with("/v1/messages")
                {
                    let (conversation, blocks) = script.answer(&body);
                    let id = format!("{:02}", counter);
                    let stream = body["stream"] == true;
                    (conversation, Reply::message(&body, &blocks, &id, stream))
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

impl Drop for MockAnthropic {
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

fn text_of_message(message: &Value) -> String {
    match &message["content"] {
        Value::String(text) => text.clone(),
        Value::Array(blocks) => blocks
            .iter()
            .map(|b| match b["type"].as_str() {
                Some("text") => b["text"].as_str().unwrap_or_default().to_owned(),
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
    for message in request["messages"].as_array().into_iter().flatten() {
        text.push('\n');
        text.push_str(&text_of_message(message));
    }
    text
}
