//! Claude Code's hooks (and the agents whose payloads are read in its
//! shape): `SubagentStop` in each era (`eras.rs`), `PostToolUse` of the
//! sub-agent tool, the main agent's `Stop`.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use agentctx_types::HookInput;

use super::{
    CaptureError, CaptureSettings, Located, Lookup, OutputSource, expand_home, io, message_or_read,
};
use crate::eras::SubagentOutput;
use crate::extract::{Extracted, Found};

pub(super) fn claude_hook(
    h: &HookInput,
    settings: &CaptureSettings,
    home: Option<&Path>,
) -> Result<Lookup, CaptureError> {
    let session = h.session_id.clone().unwrap_or_default();
    let transcript = h.transcript_path.as_deref().map(|p| expand_home(p, home));
    let message = h
        .last_assistant_message
        .as_deref()
        .filter(|m| !m.trim().is_empty());
    match h.hook_event_name.as_deref() {
        // `Stop` of the main agent: its answer for the turn, never a
        // sub-agent's output found in the transcript.
        Some("Stop") if h.agent_id.is_none() => {
            return main_answer(h, &session, transcript).map(Lookup::from);
        }
        Some("PostToolUse") => return Ok(task_result(h, transcript).into()),
        Some("SubagentStop") => {
            return match (message, &h.agent_transcript_path) {
                // 2.1.47 and later (and Copilot CLI, Qwen Code): the hook's
                // own fields are the sub-agent's output, no race.
                (Some(message), agent_transcript) => Ok(Lookup::Found(from_payload(
                    h,
                    message,
                    agent_transcript,
                    transcript,
                    home,
                ))),
                // 2.0.42 – 2.1.46: the agent's own transcript.
                (None, Some(agent_transcript)) => {
                    from_agent_transcript(h, agent_transcript, settings, home, transcript)
                }
                // 1.0.x, 2.0.0 – 2.0.41.
                (None, None) => before_2_0_42(h, settings, transcript).map(Lookup::from),
            };
        }
        _ => {}
    }
    // Another event (a `mem capture` wired to it by hand): the turn's
    // newest Task/Agent result in the session transcript.
    let Some(transcript) = transcript else {
        return Ok(Lookup::Nothing);
    };
    let mut attempt = 0;
    loop {
        let found = match crate::extract::claude(&transcript) {
            Ok(found) => found,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Found::Nothing,
            Err(e) => return Err(io(&transcript)(e)),
        };
        match found {
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
                return Ok(Lookup::Found(Located::new(
                    extracted,
                    transcript,
                    h.cwd.clone(),
                    key,
                    OutputSource::SessionTranscript,
                )));
            }
            Found::Pending | Found::Nothing if attempt < settings.retries => {
                attempt += 1;
                std::thread::sleep(settings.retry_delay);
            }
            _ => {
                // Still nothing: the hook's last message, when it has one.
                let Some(message) = message else {
                    return Ok(Lookup::Nothing);
                };
                let extracted = Extracted {
                    output: message.to_owned(),
                    subagent_type: h.agent_type.clone(),
                    ..Extracted::default()
                };
                let key = h.agent_id.as_ref().map(|id| format!("agent:{id}"));
                return Ok(Lookup::Found(Located::new(
                    extracted,
                    transcript,
                    h.cwd.clone(),
                    key,
                    OutputSource::Payload,
                )));
            }
        }
    }
}

/// The main agent's answer for the turn: the payload's message (2.1.47
/// and later), else the transcript's last assistant text of the main
/// chain. Key: the turn's prompt.
fn main_answer(
    h: &HookInput,
    session: &str,
    transcript: Option<PathBuf>,
) -> Result<Option<Located>, CaptureError> {
    let Some((output, source)) = message_or_read(
        h.last_assistant_message.as_deref(),
        transcript.as_deref(),
        OutputSource::SessionTranscript,
        crate::extract::claude_main_answer,
    )?
    else {
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
    Ok(Some(Located::new(
        extracted,
        transcript.unwrap_or_default(),
        h.cwd.clone(),
        turn,
        source,
    )))
}

/// A `SubagentStop` whose payload carries the sub-agent's message.
fn from_payload(
    h: &HookInput,
    message: &str,
    agent_transcript: &Option<String>,
    transcript: Option<PathBuf>,
    home: Option<&Path>,
) -> Located {
    let key = h.agent_id.clone().map(|id| format!("agent:{id}"));
    let (transcript, (description, tool_use_id)) = match agent_transcript {
        Some(agent_transcript) => {
            let path = expand_home(agent_transcript, home);
            let launch = launch_of(h, &path);
            (path, launch)
        }
        None => (transcript.unwrap_or_default(), (None, None)),
    };
    let extracted = Extracted {
        output: message.to_owned(),
        subagent_type: h.agent_type.clone(),
        description,
        tool_use_id,
        ..Extracted::default()
    };
    Located::new(
        extracted,
        transcript,
        h.cwd.clone(),
        key,
        OutputSource::Payload,
    )
}

/// `SubagentStop` of Claude Code 2.0.42 – 2.1.46: the payload names the
/// agent and its transcript, not its message. Those releases write
/// transcripts from a queue drained every 100 ms, so a sub-agent that ends
/// quickly (several at once: 2.1.40 in the era suite) can stop before its
/// file exists or holds its answer. The file is read again up to `retries`
/// times, each as soon as it changes and at most `retry_delay` after the
/// last read (default: 2, 200 ms; so 400 ms at most), a file that does not
/// exist yet counting as one without the answer; a run captured before
/// (its key is the agent's) is not waited for. Still nothing: [`Lookup::NotYet`], and
/// the capture is left pending for the `PostToolUse` of its `Task` (the
/// same key) or the next capture.
fn from_agent_transcript(
    h: &HookInput,
    agent_transcript: &str,
    settings: &CaptureSettings,
    home: Option<&Path>,
    transcript: Option<PathBuf>,
) -> Result<Lookup, CaptureError> {
    let path = expand_home(agent_transcript, home);
    let id = h.agent_id.clone().filter(|id| !id.is_empty()).or_else(|| {
        // `agent-<id>.jsonl`
        path.file_stem()
            .and_then(|n| n.to_str())
            .and_then(|n| n.strip_prefix("agent-"))
            .map(str::to_owned)
    });
    let Some(id) = id else {
        return Ok(Lookup::Nothing);
    };
    let key = format!("agent:{id}");
    if crate::keys::CapturedKeys::open(&settings.root).contains(&key) {
        return Ok(Lookup::Captured(key));
    }
    let started = Instant::now();
    let mut reads = 0;
    loop {
        reads += 1;
        let output = match crate::eras::last_text(&path) {
            Ok(output) => output,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
            Err(e) => return Err(io(&path)(e)),
        };
        if let Some(output) = output {
            let sub = SubagentOutput {
                output,
                key,
                prompt: crate::eras::first_prompt(&path),
                transcript: path,
                call: None,
            };
            let mut located = subagent_located(h, sub, transcript.as_deref())?;
            located.source = OutputSource::AgentTranscript;
            located.waited = if reads > 1 {
                started.elapsed()
            } else {
                Duration::ZERO
            };
            return Ok(Lookup::Found(located));
        }
        if reads > settings.retries {
            break;
        }
        wait_for_change(&path, settings.retry_delay);
    }
    let state = if path.exists() {
        "holds no final answer"
    } else {
        "does not exist"
    };
    let times = if reads == 1 {
        "once".to_owned()
    } else {
        format!("{reads} times")
    };
    Ok(Lookup::NotYet {
        key,
        reason: format!(
            "SubagentStop: the agent transcript {} {state} after {} ms (read {times})",
            path.display(),
            started.elapsed().as_millis()
        ),
    })
}

/// How often a waiting capture looks at the transcript's size and time.
const CHANGE_POLL: Duration = Duration::from_millis(10);

/// Sleeps until the file at `path` changes (appears, grows, is replaced)
/// or `longest` has passed: a re-read comes as soon as there is something
/// new to read (measured with 2.1.40: 5 to 118 ms after the hook's first
/// read), never later than `retry_delay`.
fn wait_for_change(path: &Path, longest: Duration) {
    let state = |path: &Path| {
        std::fs::metadata(path)
            .ok()
            .map(|m| (m.len(), m.modified().ok()))
    };
    let seen = state(path);
    let until = Instant::now() + longest;
    loop {
        let left = until.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return;
        }
        std::thread::sleep(CHANGE_POLL.min(left));
        if state(path) != seen {
            return;
        }
    }
}

/// `SubagentStop` of Claude Code before 2.0.42 (no agent fields): the
/// newest output not captured yet, as the era keeps it (`eras.rs`): an
/// `agent-<id>.jsonl` beside the session's transcript (2.0.0 – 2.0.41),
/// else a sidechain in it (1.0.x); never the parent's newest Task result
/// (not written yet, so that would be a neighbour's). Read once: those
/// releases write the stopping sub-agent's output only after this hook
/// returns, so a wait would only stall every sub-agent (and 2.0.x's
/// Warmup agents at every session start); its `PostToolUse` of `Task`
/// captures it, and one read still finds an earlier sub-agent's output
/// left uncaptured.
fn before_2_0_42(
    h: &HookInput,
    settings: &CaptureSettings,
    transcript: Option<PathBuf>,
) -> Result<Option<Located>, CaptureError> {
    let session = h.session_id.clone().unwrap_or_default();
    let Some(parent) = &transcript else {
        return Ok(None);
    };
    let mut captured = crate::keys::CapturedKeys::open(&settings.root);
    // 2.0.0 – 2.0.41: agent-<id>.jsonl beside the session.
    for (id, path) in crate::eras::flat_agent_transcripts(parent, &session) {
        let key = format!("agent:{id}");
        if captured.contains(&key) {
            continue;
        }
        if let Some(output) = crate::eras::last_text(&path).map_err(io(&path))? {
            let sub = SubagentOutput {
                output,
                key,
                prompt: crate::eras::first_prompt(&path),
                transcript: path,
                call: None,
            };
            let mut located = subagent_located(h, sub, Some(parent))?;
            located.source = OutputSource::AgentTranscript;
            return Ok(Some(located));
        }
    }
    // 1.0.x: sidechains in the session transcript.
    let sides = match crate::eras::sidechain_finals(parent) {
        Ok(sides) => sides,
        // Not written yet: 2.0.x's Warmup agents stop before the
        // session's first message.
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
        Err(e) => return Err(io(parent)(e)),
    };
    for mut side in sides {
        // The run's key is its call's, as PostToolUse has it, so either
        // hook captures it once.
        if let Some(prompt) = &side.prompt
            && let Some(call) = crate::eras::call_for_prompt(parent, prompt).map_err(io(parent))?
        {
            side.key = format!("call:{}", call.id);
            side.call = Some(call);
        }
        if !captured.contains(&side.key) {
            let mut located = subagent_located(h, side, Some(parent))?;
            located.source = OutputSource::SessionTranscript;
            return Ok(Some(located));
        }
    }
    Ok(None)
}

/// A sub-agent's output found at its `SubagentStop`, with its launch: the
/// description and call id from `agent-<id>.meta.json`, else from its
/// `Task`/`Agent` call in the parent transcript (found by its prompt).
fn subagent_located(
    h: &HookInput,
    sub: SubagentOutput,
    parent: Option<&Path>,
) -> Result<Located, CaptureError> {
    let (mut description, mut tool_use_id) = launch_of(h, &sub.transcript);
    let mut subagent_type = h.agent_type.clone().filter(|t| !t.is_empty());
    // The call, unless the search already found it.
    let call = match (sub.call, parent, &sub.prompt) {
        (Some(call), _, _) => Some(call),
        (None, Some(parent), Some(prompt)) => {
            match crate::eras::call_for_prompt(parent, prompt) {
                Ok(call) => call,
                // The parent's transcript is flushed on the same timer.
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
                Err(e) => return Err(io(parent)(e)),
            }
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
    Ok(Located::new(
        extracted,
        sub.transcript,
        h.cwd.clone(),
        Some(sub.key),
        OutputSource::AgentTranscript,
    ))
}

/// `PostToolUse` of a `Task`/`Agent` call: a foreground sub-agent's result,
/// in every Claude Code era (1.0.x and 2.0.x write the sub-agent's output
/// to disk only after `SubagentStop` returns, so this is where those eras
/// can be captured). A background launch is left to its `SubagentStop`.
/// The key is the sub-agent's (`agent:<agentId>`) when the result names it,
/// so `SubagentStop` and this never capture one run twice.
fn task_result(h: &HookInput, transcript: Option<PathBuf>) -> Option<Located> {
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
    Some(Located::new(
        extracted,
        transcript.unwrap_or_default(),
        h.cwd.clone(),
        key,
        OutputSource::ToolResult,
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
