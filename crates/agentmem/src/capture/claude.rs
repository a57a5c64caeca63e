//! Claude Code's hooks (and the agents whose payloads are read in its
//! shape): `SubagentStop` in each era (`eras.rs`), `PostToolUse` of the
//! sub-agent tool, the main agent's `Stop`.

use std::path::{Path, PathBuf};

use agentctx_types::HookInput;

use super::{CaptureError, CaptureSettings, FoundCapture, expand_home, io, message_or_read};
use crate::extract::{Extracted, Found};

pub(super) fn claude_hook(
    h: &HookInput,
    settings: &CaptureSettings,
    home: Option<&Path>,
) -> Result<Option<FoundCapture>, CaptureError> {
    let session = h.session_id.clone().unwrap_or_default();
    let transcript = h.transcript_path.as_deref().map(|p| expand_home(p, home));
    // `Stop` of the main agent: its answer for the turn, never a
    // sub-agent's output found in the transcript.
    if h.hook_event_name.as_deref() == Some("Stop") && h.agent_id.is_none() {
        // Before 2.1.47 the payload has no message: the transcript's last
        // assistant text of the main chain.
        let message = message_or_read(
            h.last_assistant_message.as_deref(),
            transcript.as_deref(),
            crate::extract::claude_main_answer,
        )?;
        let Some(output) = message else {
            return Ok(None);
        };
        let turn = h
            .other
            .get("prompt_id")
            .and_then(serde_json::Value::as_str)
            .map(|p| format!("claude-turn:{session}:{p}"));
        let extracted = Extracted {
            output,
            ..Extracted::default()
        };
        return Ok(Some((
            extracted,
            transcript.unwrap_or_default(),
            h.cwd.clone(),
            turn,
        )));
    }
    if h.hook_event_name.as_deref() == Some("PostToolUse") {
        return Ok(task_result(h, transcript));
    }
    if h.hook_event_name.as_deref() == Some("SubagentStop")
        && h.last_assistant_message
            .as_deref()
            .is_none_or(|m| m.trim().is_empty())
    {
        return subagent_stop_before_2_1_47(h, settings, home, transcript);
    }
    // The hook's own fields are the sub-agent's output: no race.
    if let (Some(agent_transcript), Some(message)) =
        (&h.agent_transcript_path, &h.last_assistant_message)
        && !message.trim().is_empty()
    {
        let key = h.agent_id.clone().map(|id| format!("agent:{id}"));
        let transcript = expand_home(agent_transcript, home);
        let (description, tool_use_id) = launch_of(h, &transcript);
        let extracted = Extracted {
            output: message.clone(),
            subagent_type: h.agent_type.clone(),
            description,
            tool_use_id,
            ..Extracted::default()
        };
        return Ok(Some((extracted, transcript, h.cwd.clone(), key)));
    }
    let Some(transcript) = transcript else {
        return Ok(None);
    };
    let mut attempt = 0;
    loop {
        match crate::extract::claude(&transcript).map_err(io(&transcript))? {
            Found::Output(mut extracted) => {
                if extracted.subagent_type.is_none() {
                    extracted.subagent_type = h.agent_type.clone();
                }
                let key = extracted
                    .tool_use_id
                    .as_ref()
                    .map(|id| format!("{session}:{id}"))
                    .or_else(|| extracted.call_id.as_ref().map(|id| format!("call:{id}")))
                    .or_else(|| h.agent_id.as_ref().map(|id| format!("agent:{id}")));
                return Ok(Some((extracted, transcript, h.cwd.clone(), key)));
            }
            Found::Pending | Found::Nothing if attempt < settings.retries => {
                attempt += 1;
                std::thread::sleep(settings.retry_delay);
            }
            _ => {
                // Still nothing: the hook's last message, when it has one.
                let Some(message) = h
                    .last_assistant_message
                    .clone()
                    .filter(|m| !m.trim().is_empty())
                else {
                    return Ok(None);
                };
                let extracted = Extracted {
                    output: message,
                    subagent_type: h.agent_type.clone(),
                    ..Extracted::default()
                };
                let key = h.agent_id.as_ref().map(|id| format!("agent:{id}"));
                return Ok(Some((extracted, transcript, h.cwd.clone(), key)));
            }
        }
    }
}

/// `PostToolUse` of a `Task`/`Agent` call: a foreground sub-agent's result,
/// in every Claude Code era (1.0.x and 2.0.x write the sub-agent's output
/// to disk only after `SubagentStop` returns, so this is where those eras
/// can be captured). A background launch is left to its `SubagentStop`.
/// The key is the sub-agent's (`agent:<agentId>`) when the result names it,
/// so `SubagentStop` and this never capture one run twice.
fn task_result(h: &HookInput, transcript: Option<PathBuf>) -> Option<FoundCapture> {
    use serde_json::Value;
    let tool = h.tool_name.as_deref()?;
    if tool != "Task" && tool != "Agent" {
        return None;
    }
    let response = h.tool_response.as_ref()?;
    let launched = response.get("status").and_then(Value::as_str) == Some("async_launched")
        || response.get("isAsync").and_then(Value::as_bool) == Some(true);
    if launched {
        return None;
    }
    let text = match response.get("content") {
        Some(Value::Array(parts)) => parts
            .iter()
            .filter(|p| p.get("type").and_then(Value::as_str) == Some("text"))
            .filter_map(|p| p.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join("\n"),
        Some(Value::String(text)) => text.clone(),
        _ => return None,
    };
    let output = strip_result_trailer(&text);
    if output.trim().is_empty() {
        return None;
    }
    let input = h.tool_input.as_ref();
    let field = |v: Option<&Value>, k: &str| {
        v.and_then(|v| v.get(k))
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
            .map(str::to_owned)
    };
    // 1.0.x sends no tool_use_id: the call is found by its prompt.
    let tool_use_id = h.tool_use_id.clone().or_else(|| {
        let (path, prompt) = (transcript.as_ref()?, field(input, "prompt")?);
        crate::eras::call_for_prompt(path, &prompt)
            .ok()
            .flatten()
            .map(|call| call.id)
    });
    let key = field(Some(response), "agentId")
        .map(|id| format!("agent:{id}"))
        .or_else(|| tool_use_id.as_ref().map(|id| format!("call:{id}")));
    let extracted = Extracted {
        output,
        description: field(input, "description"),
        prompt: field(input, "prompt"),
        subagent_type: field(Some(response), "agentType").or_else(|| field(input, "subagent_type")),
        tool_use_id,
        call_id: None,
    };
    Some((
        extracted,
        transcript.unwrap_or_default(),
        h.cwd.clone(),
        key,
    ))
}

/// A `Task`/`Agent` result without what Claude Code appends for the main
/// agent (`agentId: ... (use SendMessage ...)`, a `<usage>` block).
fn strip_result_trailer(text: &str) -> String {
    let body = match text.rfind("<usage>") {
        Some(at) if text[..at].trim_end().len() < at || at == 0 => &text[..at],
        _ => text,
    };
    let mut lines: Vec<&str> = body.lines().collect();
    while lines
        .last()
        .is_some_and(|l| l.trim().is_empty() || l.trim_start().starts_with("agentId:"))
    {
        lines.pop();
    }
    lines.join("\n")
}

/// `SubagentStop` from Claude Code before 2.1.47 (no `last_assistant_message`):
/// the stopping sub-agent's own output, found as its era keeps it
/// (`eras.rs`), never the parent's newest Task result (not written yet, so
/// that would be a neighbour's). Parallel sub-agents: the newest output not
/// captured yet.
fn subagent_stop_before_2_1_47(
    h: &HookInput,
    settings: &CaptureSettings,
    home: Option<&Path>,
    transcript: Option<PathBuf>,
) -> Result<Option<FoundCapture>, CaptureError> {
    let session = h.session_id.clone().unwrap_or_default();
    // Waiting helps only where the output can appear while the hook runs:
    // the agent's own transcript (2.0.42 - 2.1.46). Before 2.0.42 the
    // payload has no agent fields and Claude Code writes the sub-agent's
    // output only after SubagentStop returns, so a retry would only stall
    // every sub-agent (and 2.0.x's Warmup agents at every session start);
    // one read still finds an earlier sub-agent's output left uncaptured.
    let retries = if h.agent_transcript_path.is_some() {
        settings.retries
    } else {
        0
    };
    let mut attempt = 0;
    loop {
        // Read once per attempt: the loops below test many keys.
        let mut captured = crate::keys::CapturedKeys::open(&settings.root);
        let found = if let Some(agent_transcript) = &h.agent_transcript_path {
            // 2.0.42 – 2.1.46: the agent's own transcript.
            let path = expand_home(agent_transcript, home);
            crate::eras::last_text(&path)
                .map_err(io(&path))?
                .map(|output| crate::eras::SubagentOutput {
                    output,
                    key: format!("agent:{}", h.agent_id.clone().unwrap_or_default()),
                    prompt: crate::eras::first_prompt(&path),
                    transcript: path,
                    call: None,
                })
        } else if let Some(parent) = &transcript {
            // 2.0.0 – 2.0.41: agent-<id>.jsonl beside the session; 1.0.x: sidechains.
            let mut found = None;
            for (id, path) in crate::eras::flat_agent_transcripts(parent, &session) {
                let key = format!("agent:{id}");
                if captured.contains(&key) {
                    continue;
                }
                if let Some(output) = crate::eras::last_text(&path).map_err(io(&path))? {
                    found = Some(crate::eras::SubagentOutput {
                        output,
                        key,
                        prompt: crate::eras::first_prompt(&path),
                        transcript: path,
                        call: None,
                    });
                    break;
                }
            }
            if found.is_none() {
                let sides = match crate::eras::sidechain_finals(parent) {
                    Ok(sides) => sides,
                    // Not written yet: 2.0.x's Warmup agents stop before
                    // the session's first message.
                    Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
                    Err(e) => return Err(io(parent)(e)),
                };
                for mut side in sides {
                    // 1.0.x: the run's key is its call's, as PostToolUse has it,
                    // so either hook captures it once.
                    if let Some(prompt) = &side.prompt
                        && let Some(call) =
                            crate::eras::call_for_prompt(parent, prompt).map_err(io(parent))?
                    {
                        side.key = format!("call:{}", call.id);
                        side.call = Some(call);
                    }
                    if !captured.contains(&side.key) {
                        found = Some(side);
                        break;
                    }
                }
            }
            found
        } else {
            None
        };
        match found {
            Some(sub) => {
                let (mut description, mut tool_use_id) = launch_of(h, &sub.transcript);
                let mut subagent_type = h.agent_type.clone().filter(|t| !t.is_empty());
                // The call, unless the search already found it.
                let call = match (sub.call, &transcript, &sub.prompt) {
                    (Some(call), _, _) => Some(call),
                    (None, Some(parent), Some(prompt)) => {
                        crate::eras::call_for_prompt(parent, prompt).map_err(io(parent))?
                    }
                    _ => None,
                };
                if let Some(call) = call {
                    description = description.or(call.description);
                    subagent_type = subagent_type.or(call.subagent_type);
                    tool_use_id = tool_use_id.or(Some(call.id));
                }
                let extracted = Extracted {
                    output: sub.output,
                    description,
                    prompt: sub.prompt,
                    subagent_type,
                    tool_use_id,
                    call_id: None,
                };
                return Ok(Some((
                    extracted,
                    sub.transcript,
                    h.cwd.clone(),
                    Some(sub.key),
                )));
            }
            None if attempt < retries => {
                attempt += 1;
                std::thread::sleep(settings.retry_delay);
            }
            None => return Ok(None),
        }
    }
}

/// How a Claude Code sub-agent was launched: the `description` and the id of
/// the tool call that started it. Claude Code 2.1.x writes both to
/// `agent-<id>.meta.json` beside the sub-agent's transcript
/// (`{"agentType", "description", "toolUseId", ...}`, recorded from
/// 2.1.330); a background agent's description is also in the payload's
/// `background_tasks`.
fn launch_of(hook: &HookInput, transcript: &Path) -> (Option<String>, Option<String>) {
    let meta: Option<serde_json::Value> = transcript
        .to_str()
        .and_then(|t| t.strip_suffix(".jsonl"))
        .map(|stem| PathBuf::from(format!("{stem}.meta.json")))
        .and_then(|path| std::fs::read_to_string(path).ok())
        .and_then(|text| serde_json::from_str(&text).ok());
    let field = |key: &str| {
        meta.as_ref()
            .and_then(|m| m.get(key))
            .and_then(serde_json::Value::as_str)
            .filter(|v| !v.is_empty())
            .map(str::to_owned)
    };
    let description = field("description").or_else(|| {
        hook.background_tasks
            .iter()
            .find(|task| task.id.is_some() && task.id == hook.agent_id)
            .and_then(|task| task.description.clone())
    });
    (description, field("toolUseId"))
}

#[cfg(test)]
mod tests {
    use super::strip_result_trailer;

    #[test]
    fn the_result_trailer_is_not_part_of_the_output() {
        let text = "DONE: mapped\n\nagentId: a1 (use SendMessage with to: 'a1' to continue)\n<usage>total_tokens: 10\ntool_uses: 1</usage>";
        assert_eq!(strip_result_trailer(text), "DONE: mapped");
        assert_eq!(strip_result_trailer("plain\n"), "plain");
    }
}
