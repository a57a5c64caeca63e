//! Codex's hooks (`SubagentStop`, `Stop`) and its `notify`.

use std::path::Path;

use agentctx_types::{CodexNotify, HookInput};

use super::{CaptureError, CaptureSettings, Located, OutputSource, expand_home, message_or_read};
use crate::extract::{Extracted, codex_thread, codex_turn_answer, find_rollout};

/// The dedupe key of a Codex agent output, the same whichever trigger saw
/// it: a sub-agent's thread by its id (a sub-agent's thread id is its
/// `agent_id`), a main turn by its turn id.
fn codex_key(subagent: bool, thread_or_agent: Option<&str>, turn: Option<&str>) -> Option<String> {
    if subagent {
        thread_or_agent.map(|id| format!("agent:{id}"))
    } else {
        turn.map(|t| format!("codex-turn:{t}"))
    }
}

/// A task message, cut for the frontmatter.
fn short(text: &str) -> String {
    let line = text
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or("");
    line.chars().take(120).collect()
}

/// Codex hooks: `SubagentStop` (a sub-agent's final message, its type and
/// its own rollout) and `Stop` (the main agent's answer for the turn).
/// Codex's multi-agent tools (`spawn_agent`, `wait_agent`, `close_agent`)
/// are never taken for outputs: each agent's output comes from its own stop.
pub(super) fn codex_hook(
    h: &HookInput,
    home: Option<&Path>,
) -> Result<Option<Located>, CaptureError> {
    let subagent = h.agent_id.is_some();
    let transcript = h
        .agent_transcript_path
        .as_deref()
        .filter(|_| subagent)
        .or(h.transcript_path.as_deref())
        .map(|p| expand_home(p, home));
    // A rollout not written yet holds nothing: the sub-agent's `notify`
    // (same key) captures it.
    let message = message_or_read(
        h.last_assistant_message.as_deref(),
        transcript.as_deref(),
        OutputSource::Rollout,
        |path| codex_turn_answer(path, h.turn_id.as_deref()),
    )?;
    let Some((output, source)) = message else {
        return Ok(None);
    };
    let thread = transcript.as_deref().map(codex_thread).unwrap_or_default();
    let extracted = Extracted {
        output,
        subagent_type: h.agent_type.clone().filter(|_| subagent),
        description: thread.task.as_deref().filter(|_| subagent).map(short),
        ..Extracted::default()
    };
    let key = codex_key(subagent, h.agent_id.as_deref(), h.turn_id.as_deref());
    Ok(Some(Located::new(
        extracted,
        transcript.unwrap_or_default(),
        h.cwd.clone(),
        key,
        source,
    )))
}

/// Codex `notify`: it fires for every agent's turn. A sub-agent's turn
/// (its rollout says `thread_source: "subagent"`; the payload has no
/// `client`) is that sub-agent's output; a main turn is the main agent's
/// answer. The rollout is read back to the turn's start only.
pub(super) fn codex_notify(
    n: &CodexNotify,
    settings: &CaptureSettings,
) -> Result<Option<Located>, CaptureError> {
    let rollout = n
        .thread_id
        .as_deref()
        .and_then(|id| find_rollout(&settings.codex_sessions, id));
    let thread = rollout.as_deref().map(codex_thread).unwrap_or_default();
    let subagent = thread.subagent || (rollout.is_none() && n.client.is_none());
    let message = message_or_read(
        n.last_assistant_message.as_deref(),
        rollout.as_deref(),
        OutputSource::Rollout,
        |path| codex_turn_answer(path, n.turn_id.as_deref()),
    )?;
    let Some((output, source)) = message else {
        return Ok(None);
    };
    let description = if subagent {
        thread
            .task
            .as_deref()
            .or(n.input_messages.first().map(String::as_str))
            .map(short)
    } else {
        n.input_messages.first().map(|m| short(m))
    };
    let extracted = Extracted {
        output,
        subagent_type: if subagent {
            Some(thread.role.clone().unwrap_or_else(|| "default".to_owned()))
        } else {
            None
        },
        description,
        ..Extracted::default()
    };
    let key = codex_key(subagent, n.thread_id.as_deref(), n.turn_id.as_deref());
    Ok(Some(Located::new(
        extracted,
        rollout.unwrap_or_default(),
        n.cwd.clone(),
        key,
        source,
    )))
}
