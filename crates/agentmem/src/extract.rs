//! Finding a sub-agent's output in a transcript: Claude Code's JSONL and
//! Codex rollouts. Both are read from the end.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::tail::recent_json;

/// A sub-agent's output and what the transcript says about it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Extracted {
    pub output: String,
    pub description: Option<String>,
    pub prompt: Option<String>,
    pub subagent_type: Option<String>,
    pub tool_use_id: Option<String>,
    pub call_id: Option<String>,
}

/// What a search found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Found {
    /// The output.
    Output(Extracted),
    /// A Task/Agent call whose result is not in the transcript yet (the
    /// hook fired before the result was flushed): worth a retry.
    Pending,
    /// Nothing to capture.
    Nothing,
}

fn text_of(content: &Value) -> String {
    match content {
        Value::String(s) => s.clone(),
        Value::Array(parts) => parts
            .iter()
            .filter_map(|p| match p {
                Value::String(s) => Some(s.clone()),
                // Claude: `text`; Codex: `output_text`, `input_text`.
                Value::Object(o)
                    if o.get("type")
                        .and_then(Value::as_str)
                        .is_none_or(|t| t == "text" || t.ends_with("_text")) =>
                {
                    o.get("text").and_then(Value::as_str).map(str::to_owned)
                }
                _ => None,
            })
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

/// Whether a Claude Code transcript entry is a turn's prompt: a user
/// message of the main chain that carries no tool result.
pub fn is_turn_prompt(entry: &Value) -> bool {
    if entry.get("type").and_then(Value::as_str) != Some("user")
        || entry.get("isSidechain").and_then(Value::as_bool) == Some(true)
    {
        return false;
    }
    match entry.pointer("/message/content") {
        Some(Value::String(_)) => true,
        Some(Value::Array(parts)) => !parts
            .iter()
            .any(|p| p.get("type").and_then(Value::as_str) == Some("tool_result")),
        _ => false,
    }
}

fn string(v: &Value, key: &str) -> Option<String> {
    v.get(key)
        .and_then(Value::as_str)
        .map(str::to_owned)
        .filter(|s| !s.is_empty())
}

/// Claude Code: the newest `Task`/`Agent` tool call of the current turn
/// (the tool was renamed in v2.1.63) whose result is in the transcript and
/// is not just an asynchronous launch acknowledgement. The search stops at
/// the turn's prompt, so a transcript without any call costs its last turn,
/// not its size.
pub fn claude(transcript: &Path) -> std::io::Result<Found> {
    // Results seen so far (newer than what is being read), by tool_use_id.
    let mut results: BTreeMap<String, (String, Option<String>, bool)> = BTreeMap::new();
    let mut pending = false;
    for entry in recent_json(transcript)? {
        let kind = entry.get("type").and_then(Value::as_str).unwrap_or("");
        if is_turn_prompt(&entry) {
            break;
        }
        let content = entry.pointer("/message/content").and_then(Value::as_array);
        match (kind, content) {
            ("user", Some(parts)) => {
                let meta = entry.get("toolUseResult");
                let is_async = meta.is_some_and(|m| {
                    m.get("isAsync").and_then(Value::as_bool) == Some(true)
                        || m.get("status").and_then(Value::as_str) == Some("async_launched")
                });
                let agent_type = meta.and_then(|m| string(m, "agentType"));
                for part in parts {
                    if part.get("type").and_then(Value::as_str) == Some("tool_result")
                        && let Some(id) = string(part, "tool_use_id")
                    {
                        let text = text_of(part.get("content").unwrap_or(&Value::Null));
                        results
                            .entry(id)
                            .or_insert((text, agent_type.clone(), is_async));
                    }
                }
            }
            ("assistant", Some(parts)) => {
                for part in parts.iter().rev() {
                    let is_task = part.get("type").and_then(Value::as_str) == Some("tool_use")
                        && matches!(
                            part.get("name").and_then(Value::as_str),
                            Some("Task" | "Agent")
                        );
                    if !is_task {
                        continue;
                    }
                    let Some(id) = string(part, "id") else {
                        continue;
                    };
                    let input = part.get("input").cloned().unwrap_or(Value::Null);
                    match results.get(&id) {
                        None => pending = true,
                        // Only the launch of a background agent: keep looking.
                        Some((_, _, true)) => {}
                        Some((text, agent_type, false)) if !text.trim().is_empty() => {
                            return Ok(Found::Output(Extracted {
                                output: text.clone(),
                                description: string(&input, "description"),
                                prompt: string(&input, "prompt"),
                                subagent_type: agent_type
                                    .clone()
                                    .or_else(|| string(&input, "subagent_type")),
                                tool_use_id: Some(id),
                                call_id: None,
                            }));
                        }
                        Some(_) => {}
                    }
                }
            }
            _ => {}
        }
    }
    Ok(if pending {
        Found::Pending
    } else {
        Found::Nothing
    })
}

/// Claude Code: the main agent's last text answer in its transcript (not a
/// sub-agent's `isSidechain` message), read backwards.
pub fn claude_main_answer(transcript: &Path) -> std::io::Result<Option<String>> {
    for entry in recent_json(transcript)? {
        if entry.get("type").and_then(Value::as_str) != Some("assistant")
            || entry.get("isSidechain").and_then(Value::as_bool) == Some(true)
        {
            continue;
        }
        let text = text_of(entry.pointer("/message/content").unwrap_or(&Value::Null));
        if !text.trim().is_empty() {
            return Ok(Some(text));
        }
    }
    Ok(None)
}

/// Codex: the last assistant message of the turn `turn_id` in a rollout
/// (the whole last turn when the id is unknown). Read backwards, the search
/// stops at the turn's `task_started`, so an earlier turn's answer is never
/// taken for this one.
pub fn codex_turn_answer(rollout: &Path, turn_id: Option<&str>) -> std::io::Result<Option<String>> {
    // The newest answer seen since the last turn start passed (reading
    // backwards): it belongs to the turn whose start comes next.
    let mut answer: Option<String> = None;
    for entry in recent_json(rollout)? {
        let payload = entry.get("payload").unwrap_or(&Value::Null);
        let kind = entry.get("type").and_then(Value::as_str).unwrap_or("");
        let payload_type = payload.get("type").and_then(Value::as_str).unwrap_or("");
        if kind == "event_msg" && payload_type == "task_started" {
            let started = payload
                .pointer("/turn_attribution/turn_id")
                .or_else(|| payload.get("turn_id"))
                .and_then(Value::as_str);
            if turn_id.is_none() || started == turn_id {
                return Ok(answer);
            }
            answer = None;
            continue;
        }
        if answer.is_none()
            && kind == "response_item"
            && payload_type == "message"
            && payload.get("role").and_then(Value::as_str) == Some("assistant")
        {
            let text = text_of(payload.get("content").unwrap_or(&Value::Null));
            if !text.trim().is_empty() {
                answer = Some(text);
            }
        }
    }
    Ok(None)
}

/// What the start of a Codex rollout says about its thread: a sub-agent's
/// thread (`thread_source: "subagent"`, with its role) and the task it was
/// given (the first user message that is not Codex's own AGENTS.md or
/// environment context). Reads at most the first 64 lines.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CodexThread {
    /// A sub-agent's thread.
    pub subagent: bool,
    /// The sub-agent's role, when it has one.
    pub role: Option<String>,
    /// The thread's first task message.
    pub task: Option<String>,
}

/// See [`CodexThread`].
pub fn codex_thread(rollout: &Path) -> CodexThread {
    use std::io::BufRead as _;
    let mut thread = CodexThread::default();
    let Ok(file) = std::fs::File::open(rollout) else {
        return thread;
    };
    for line in std::io::BufReader::new(file)
        .split(b'\n')
        .take(64)
        .map_while(Result::ok)
    {
        let Ok(entry) = serde_json::from_slice::<Value>(&line) else {
            continue;
        };
        let payload = entry.get("payload").unwrap_or(&Value::Null);
        match entry.get("type").and_then(Value::as_str) {
            Some("session_meta") => {
                thread.subagent = payload.get("thread_source").and_then(Value::as_str)
                    == Some("subagent")
                    || payload
                        .get("parent_thread_id")
                        .is_some_and(|p| !p.is_null());
                thread.role = payload
                    .pointer("/source/subagent/thread_spawn/agent_role")
                    .and_then(Value::as_str)
                    .map(str::to_owned);
            }
            Some("response_item")
                if payload.get("type").and_then(Value::as_str) == Some("message")
                    && payload.get("role").and_then(Value::as_str) == Some("user") =>
            {
                let text = text_of(payload.get("content").unwrap_or(&Value::Null));
                let own = text.starts_with("# AGENTS.md instructions") || text.starts_with('<');
                if !own && !text.trim().is_empty() {
                    thread.task = Some(text);
                    break;
                }
            }
            _ => {}
        }
    }
    thread
}

/// The newest rollout of `thread_id` under the Codex sessions folder:
/// `YYYY/MM/DD/rollout-<timestamp>-<thread-id>.jsonl`, or the directory form
/// `rollout-...-<thread-id>/rollout.jsonl`. Day folders are searched newest
/// first, and the search stops at the first day that has one.
pub fn find_rollout(sessions: &Path, thread_id: &str) -> Option<PathBuf> {
    let sorted_desc = |dir: &Path| -> Vec<PathBuf> {
        let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
            .map(|rd| rd.filter_map(Result::ok).map(|e| e.path()).collect())
            .unwrap_or_default();
        entries.sort_by(|a, b| b.cmp(a));
        entries
    };
    let suffix_file = format!("-{thread_id}.jsonl");
    let suffix_dir = format!("-{thread_id}");
    for year in sorted_desc(sessions).into_iter().filter(|p| p.is_dir()) {
        for month in sorted_desc(&year).into_iter().filter(|p| p.is_dir()) {
            for day in sorted_desc(&month).into_iter().filter(|p| p.is_dir()) {
                for candidate in sorted_desc(&day) {
                    let name = candidate.file_name().and_then(|n| n.to_str()).unwrap_or("");
                    if !name.starts_with("rollout-") {
                        continue;
                    }
                    if name.ends_with(&suffix_file) && candidate.is_file() {
                        return Some(candidate);
                    }
                    if name.ends_with(&suffix_dir) && candidate.join("rollout.jsonl").is_file() {
                        return Some(candidate.join("rollout.jsonl"));
                    }
                }
            }
        }
    }
    None
}
