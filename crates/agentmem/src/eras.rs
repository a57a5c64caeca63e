//! Where each Claude Code era puts a sub-agent's output when its
//! `SubagentStop` hook runs (recorded with 1.0.128, 2.0.30, 2.1.40 and
//! 2.1.330 by the end-to-end suite; docs/agentmem.md has the table):
//!
//! | era | SubagentStop carries | the output is |
//! |---|---|---|
//! | 2.1.47+ | `agent_id`, `agent_transcript_path`, `last_assistant_message` | the message |
//! | 2.0.42 – 2.1.46 | `agent_id`, `agent_transcript_path` | the last assistant text of the agent's transcript (`<session>/subagents/agent-<id>.jsonl`) |
//! | 2.0.0 – 2.0.41 | nothing of the agent | the newest `agent-<id>.jsonl` beside the session transcript that belongs to the session (internal `Warmup` agents left out) |
//! | 1.0.x | nothing of the agent | the newest final `isSidechain` message in the session transcript |
//!
//! The parent transcript does not hold the sub-agent's `tool_result` yet at
//! that moment (SubagentStop can block, so the result is written after the
//! hook returns): the parent's pending call is never the answer.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::tail::recent_json;

/// A sub-agent's final output and what identifies it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SubagentOutput {
    /// The final text.
    pub output: String,
    /// The dedupe key (`agent:<id>` or `sidechain:<uuid>`).
    pub key: String,
    /// The task it was given (its first user message), to find its call.
    pub prompt: Option<String>,
    /// Where it was read.
    pub transcript: PathBuf,
    /// Its call in the parent transcript, when the search already found it.
    pub call: Option<TaskCall>,
}

fn text_of(content: &Value) -> Option<String> {
    match content {
        Value::String(s) => Some(s.clone()),
        Value::Array(parts) => {
            // A message that calls a tool is not a final answer.
            if parts
                .iter()
                .any(|p| p.get("type").and_then(Value::as_str) == Some("tool_use"))
            {
                return None;
            }
            let text: Vec<&str> = parts
                .iter()
                .filter(|p| p.get("type").and_then(Value::as_str) == Some("text"))
                .filter_map(|p| p.get("text").and_then(Value::as_str))
                .collect();
            Some(text.join("\n"))
        }
        _ => None,
    }
    .filter(|t| !t.trim().is_empty())
}

/// The last assistant text (a message without tool calls) of a transcript.
pub fn last_text(transcript: &Path) -> std::io::Result<Option<String>> {
    for entry in recent_json(transcript)? {
        if entry.get("type").and_then(Value::as_str) == Some("assistant")
            && let Some(text) = entry.pointer("/message/content").and_then(text_of)
        {
            return Ok(Some(text));
        }
    }
    Ok(None)
}

/// The first user message of a transcript (a sub-agent's task), reading
/// at most its first 32 lines.
pub fn first_prompt(transcript: &Path) -> Option<String> {
    use std::io::BufRead as _;
    let file = std::fs::File::open(transcript).ok()?;
    std::io::BufReader::new(file)
        .split(b'\n')
        .take(32)
        .map_while(Result::ok)
        .filter_map(|line| serde_json::from_slice::<Value>(&line).ok())
        .find(|entry| entry.get("type").and_then(Value::as_str) == Some("user"))
        .and_then(|entry| entry.pointer("/message/content").and_then(text_of))
}

/// 2.0.0 – 2.0.41: the `agent-<id>.jsonl` files beside the session's
/// transcript that belong to `session`, newest first, without the
/// internal `Warmup` agents, at most 16.
pub fn flat_agent_transcripts(session_transcript: &Path, session: &str) -> Vec<(String, PathBuf)> {
    let Some(dir) = session_transcript.parent() else {
        return Vec::new();
    };
    let mut files: Vec<(std::time::SystemTime, String, PathBuf)> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().to_str()?.to_owned();
            let id = name
                .strip_prefix("agent-")?
                .strip_suffix(".jsonl")?
                .to_owned();
            let modified = e.metadata().ok()?.modified().ok()?;
            Some((modified, id, e.path()))
        })
        .collect();
    files.sort_by_key(|f| std::cmp::Reverse(f.0));
    files
        .into_iter()
        .take(16)
        .filter(|(_, _, path)| belongs_to(path, session))
        .filter(|(_, _, path)| first_prompt(path).is_none_or(|p| p.trim() != "Warmup"))
        .map(|(_, id, path)| (id, path))
        .collect()
}

fn belongs_to(path: &Path, session: &str) -> bool {
    use std::io::BufRead as _;
    let Ok(file) = std::fs::File::open(path) else {
        return false;
    };
    std::io::BufReader::new(file)
        .split(b'\n')
        .take(4)
        .map_while(Result::ok)
        .filter_map(|line| serde_json::from_slice::<Value>(&line).ok())
        .any(|entry| entry.get("sessionId").and_then(Value::as_str) == Some(session))
}

/// 1.0.x: the final `isSidechain` messages of the current turn, newest
/// first, each with its key and its task. The search stops at the turn's
/// start (the main chain's last prompt), so its cost is the turn's.
pub fn sidechain_finals(transcript: &Path) -> std::io::Result<Vec<SubagentOutput>> {
    struct Side {
        parent: Option<String>,
        user_text: Option<String>,
    }
    let mut sides: std::collections::HashMap<String, Side> = Default::default();
    let mut finals: Vec<(String, String)> = Vec::new();
    for entry in recent_json(transcript)? {
        let kind = entry.get("type").and_then(Value::as_str).unwrap_or("");
        let sidechain = entry.get("isSidechain").and_then(Value::as_bool) == Some(true);
        let content = entry.pointer("/message/content");
        if !sidechain {
            if crate::extract::is_turn_prompt(&entry) {
                break;
            }
            continue;
        }
        let Some(uuid) = entry.get("uuid").and_then(Value::as_str).map(str::to_owned) else {
            continue;
        };
        let parent = entry
            .get("parentUuid")
            .and_then(Value::as_str)
            .map(str::to_owned);
        let user_text = (kind == "user")
            .then(|| content.and_then(text_of))
            .flatten();
        if kind == "assistant"
            && let Some(text) = content.and_then(text_of)
        {
            finals.push((uuid.clone(), text));
        }
        sides.insert(uuid, Side { parent, user_text });
    }
    Ok(finals
        .into_iter()
        .map(|(uuid, output)| {
            // Walk up the sidechain to its first message: the task.
            let mut prompt = None;
            let mut at = Some(uuid.clone());
            let mut steps = 0;
            while let Some(id) = at.take() {
                steps += 1;
                let Some(side) = sides.get(&id) else { break };
                if side.user_text.is_some() {
                    prompt = side.user_text.clone();
                }
                if steps > 10_000 {
                    break;
                }
                at = side.parent.clone();
            }
            SubagentOutput {
                output,
                key: format!("sidechain:{uuid}"),
                prompt,
                transcript: transcript.to_path_buf(),
                call: None,
            }
        })
        .collect())
}

/// How many entries, from the end, [`call_for_prompt`] reads: a call is
/// near the result it is looked up for, and a prompt that matches nothing
/// must not cost a read of the whole history.
const CALL_SEARCH_ENTRIES: usize = 10_000;

/// A `Task`/`Agent` call of the parent agent.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TaskCall {
    /// Its `description` input.
    pub description: Option<String>,
    /// Its `subagent_type` input.
    pub subagent_type: Option<String>,
    /// Its `tool_use` id.
    pub id: String,
}

/// The `Task`/`Agent` call in the parent transcript whose prompt is
/// `prompt` (the newest, among the last [`CALL_SEARCH_ENTRIES`] entries):
/// its description, sub-agent type and id.
pub fn call_for_prompt(transcript: &Path, prompt: &str) -> std::io::Result<Option<TaskCall>> {
    for entry in recent_json(transcript)?.take(CALL_SEARCH_ENTRIES) {
        let Some(parts) = entry.pointer("/message/content").and_then(Value::as_array) else {
            continue;
        };
        for part in parts {
            let is_task = part.get("type").and_then(Value::as_str) == Some("tool_use")
                && matches!(
                    part.get("name").and_then(Value::as_str),
                    Some("Task" | "Agent")
                );
            if !is_task || part.pointer("/input/prompt").and_then(Value::as_str) != Some(prompt) {
                continue;
            }
            let field = |k: &str| {
                part.pointer(&format!("/input/{k}"))
                    .and_then(Value::as_str)
                    .map(str::to_owned)
            };
            let id = part
                .get("id")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned();
            return Ok(Some(TaskCall {
                description: field("description"),
                subagent_type: field("subagent_type"),
                id,
            }));
        }
    }
    Ok(None)
}
