//! Finding a sub-agent's output in a transcript: Claude Code's JSONL and
//! Codex rollouts. Both are read from the end.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::tail::reverse_json;

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

fn string(v: &Value, key: &str) -> Option<String> {
    v.get(key)
        .and_then(Value::as_str)
        .map(str::to_owned)
        .filter(|s| !s.is_empty())
}

/// Claude Code: the newest `Task`/`Agent` tool call (the tool was renamed
/// in v2.1.63) whose result is in the transcript and is not just an
/// asynchronous launch acknowledgement.
pub fn claude(transcript: &Path) -> std::io::Result<Found> {
    // Results seen so far (newer than what is being read), by tool_use_id.
    let mut results: BTreeMap<String, (String, Option<String>, bool)> = BTreeMap::new();
    let mut pending = false;
    for entry in reverse_json(transcript)? {
        let kind = entry.get("type").and_then(Value::as_str).unwrap_or("");
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

/// Codex: a Task-like `function_call_output` paired with its call by
/// `call_id` (preferred); else `last_message` (the notify payload's); else
/// the rollout's last assistant message.
pub fn codex(rollout: &Path, last_message: Option<&str>) -> std::io::Result<Found> {
    let mut outputs: BTreeMap<String, String> = BTreeMap::new();
    let mut last_assistant: Option<String> = None;
    for entry in reverse_json(rollout)? {
        if entry.get("type").and_then(Value::as_str) != Some("response_item") {
            continue;
        }
        let Some(payload) = entry.get("payload") else {
            continue;
        };
        match payload.get("type").and_then(Value::as_str) {
            Some("function_call_output") => {
                if let Some(id) = string(payload, "call_id") {
                    let output = match payload.get("output") {
                        Some(Value::String(s)) => s.clone(),
                        Some(Value::Object(o)) => o.get("content").map(text_of).unwrap_or_default(),
                        Some(other) => text_of(other),
                        None => String::new(),
                    };
                    outputs.entry(id).or_insert(output);
                }
            }
            Some("function_call") => {
                let name = payload.get("name").and_then(Value::as_str).unwrap_or("");
                let lower = name.to_ascii_lowercase();
                let task_like = lower == "task" || lower.contains("agent");
                let Some(id) = string(payload, "call_id") else {
                    continue;
                };
                if let (true, Some(output)) = (task_like, outputs.get(&id))
                    && !output.trim().is_empty()
                {
                    let arguments: Value = payload
                        .get("arguments")
                        .and_then(Value::as_str)
                        .and_then(|a| serde_json::from_str(a).ok())
                        .unwrap_or(Value::Null);
                    return Ok(Found::Output(Extracted {
                        output: output.clone(),
                        description: string(&arguments, "description"),
                        prompt: string(&arguments, "prompt"),
                        subagent_type: string(&arguments, "subagent_type")
                            .or_else(|| string(&arguments, "agent_type")),
                        tool_use_id: None,
                        call_id: Some(id),
                    }));
                }
            }
            Some("message")
                if last_assistant.is_none()
                    && payload.get("role").and_then(Value::as_str) == Some("assistant") =>
            {
                let text = text_of(payload.get("content").unwrap_or(&Value::Null));
                if !text.trim().is_empty() {
                    last_assistant = Some(text);
                }
            }
            _ => {}
        }
    }
    let fallback = last_message
        .filter(|m| !m.trim().is_empty())
        .map(str::to_owned)
        .or(last_assistant);
    Ok(match fallback {
        Some(output) => Found::Output(Extracted {
            output,
            ..Extracted::default()
        }),
        None => Found::Nothing,
    })
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
