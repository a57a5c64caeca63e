//! One capture: from a hook's input to a file in the memory folder.

use std::collections::BTreeMap;
use std::fs::OpenOptions;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::time::Duration;

use agentctx_types::{CodexNotify, HookInput};
use sha2::{Digest, Sha256};

use crate::completion::{category_of, find_completion};
use crate::extract::{Extracted, Found, claude, codex_thread, codex_turn_answer, find_rollout};
use crate::format::{CaptureDoc, cut_bytes, kebab, safe_name};
use crate::redact::redact;

/// The key of a hook input's `other` under which `agentctx hook` names the
/// agent (`gemini`, `copilot`, ...) whose payload it translated.
pub const AGENT_KEY: &str = "agentctx_agent";

/// What started the capture.
#[derive(Clone, Debug)]
pub enum Trigger {
    /// A hook's stdin (Claude Code `SubagentStop`/`Stop`, Codex `SubagentStop`).
    Hook(Box<HookInput>),
    /// Codex `notify`'s argument.
    CodexNotify(CodexNotify),
}

/// Where and how to capture.
#[derive(Clone, Debug)]
pub struct CaptureSettings {
    /// The memory folder.
    pub root: PathBuf,
    /// Codex's sessions folder (for `notify`).
    pub codex_sessions: PathBuf,
    /// Re-reads of a transcript whose result is not flushed yet.
    pub retries: u32,
    /// Wait between re-reads.
    pub retry_delay: Duration,
    /// Mask secrets.
    pub redact: bool,
    /// The capture time, in the zone to write it in.
    pub now: jiff::Zoned,
    /// How the capture's project is identified (from its cwd).
    pub identity: crate::IdentityOptions,
}

/// How a capture attempt ended (errors aside).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CaptureOutcome {
    /// A new file.
    Captured {
        /// The file.
        path: PathBuf,
        /// Its category.
        category: String,
        /// The agent type in its name.
        agent_type: String,
        /// The run's dedupe key (`agent:<id>`, `call:<id>`, ...): what a
        /// shared store knows the capture by.
        key: String,
    },
    /// This run was captured before; nothing was written.
    Duplicate {
        /// The dedupe key.
        key: String,
    },
    /// Nothing to capture, and why.
    Skipped {
        /// Why.
        reason: String,
    },
}

/// A capture that failed; the CLI logs it and still exits 0.
#[derive(Debug, thiserror::Error)]
pub enum CaptureError {
    /// A file or folder could not be used.
    #[error("{}: {source}", .path.display())]
    Io {
        /// The path.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> CaptureError + '_ {
    move |source| CaptureError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// Which agent and hook the trigger came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Origin {
    /// `claude` or `codex`.
    pub source_app: &'static str,
    /// `claude-hook`, `codex-notify` or `codex-hook`.
    pub source: &'static str,
    /// The session (thread) id.
    pub session_id: Option<String>,
    /// The hook event (`SubagentStop`, `agent-turn-complete`, ...).
    pub event: Option<String>,
}

/// Why `mem capture`'s input names nothing to capture.
#[derive(Debug, thiserror::Error)]
pub enum TriggerError {
    /// The hook input could not be read.
    #[error("cannot read the hook input: {0}")]
    Read(#[source] std::io::Error),
    /// The input is not the JSON of a hook payload or a Codex notify payload.
    #[error("cannot read the hook input as a hook's JSON: {0}")]
    Json(#[source] serde_json::Error),
}

impl Trigger {
    /// The trigger `mem capture` was given: Codex `notify`'s JSON argument
    /// when there is one, else a hook's JSON read from `input` (stdin).
    pub fn read(notify: Option<&str>, mut input: impl std::io::Read) -> Result<Self, TriggerError> {
        if let Some(payload) = notify {
            return serde_json::from_str(payload)
                .map(Self::CodexNotify)
                .map_err(TriggerError::Json);
        }
        let mut text = String::new();
        input
            .read_to_string(&mut text)
            .map_err(TriggerError::Read)?;
        let hook: HookInput = serde_json::from_str(&text).map_err(TriggerError::Json)?;
        Ok(Self::hook(hook))
    }

    /// A hook's input.
    pub fn hook(input: HookInput) -> Self {
        Self::Hook(Box::new(input))
    }

    /// Where it came from, from the input alone.
    pub fn origin(&self) -> Origin {
        match self {
            Self::CodexNotify(n) => Origin {
                source_app: "codex",
                source: "codex-notify",
                session_id: n.thread_id.clone(),
                event: n.kind.clone(),
            },
            Self::Hook(h) => {
                // Codex names its transcripts `rollout-*.jsonl`.
                let codex = h.transcript_path.as_deref().is_some_and(|p| {
                    Path::new(p)
                        .file_name()
                        .and_then(|n| n.to_str())
                        .is_some_and(|n| n.starts_with("rollout-"))
                });
                // The hook names the agent when it knows it.
                let named = h.other.get(AGENT_KEY).and_then(serde_json::Value::as_str);
                let (source_app, source) = match named {
                    Some("gemini") => ("gemini", "gemini-hook"),
                    Some("copilot") => ("copilot", "copilot-hook"),
                    Some("opencode") => ("opencode", "opencode-plugin"),
                    Some("qwen") => ("qwen", "qwen-hook"),
                    _ if codex => ("codex", "codex-hook"),
                    _ => ("claude", "claude-hook"),
                };
                Origin {
                    source_app,
                    source,
                    session_id: h.session_id.clone(),
                    event: h.hook_event_name.clone(),
                }
            }
        }
    }
}

/// Expands a leading `~` against `home`.
pub fn expand_home(path: &str, home: Option<&Path>) -> PathBuf {
    match (path.strip_prefix("~/"), home) {
        (Some(rest), Some(home)) => home.join(rest),
        _ if path == "~" => home.map_or_else(|| PathBuf::from(path), Path::to_path_buf),
        _ => PathBuf::from(path),
    }
}

/// Captures the sub-agent output the trigger points at. `home` expands `~`.
pub fn capture(
    trigger: &Trigger,
    settings: &CaptureSettings,
    home: Option<&Path>,
) -> Result<CaptureOutcome, CaptureError> {
    let origin = trigger.origin();
    let (extracted, transcript, cwd, key_hint) = match find(trigger, settings, home)? {
        Some(found) => found,
        None => {
            return Ok(CaptureOutcome::Skipped {
                reason: skip_reason(trigger, settings),
            });
        }
    };
    let mut counts: BTreeMap<&'static str, usize> = BTreeMap::new();
    let mask = |text: &str, counts: &mut BTreeMap<&'static str, usize>| {
        if settings.redact {
            redact(text, counts)
        } else {
            text.to_owned()
        }
    };
    let output = mask(&extracted.output, &mut counts);
    let completion = find_completion(&extracted.output);
    // No completion line: the call's description says what the run was
    // for better than the output's first line does.
    let completion_text = completion
        .as_ref()
        .map(|c| c.text.clone())
        .or_else(|| {
            extracted
                .description
                .clone()
                .filter(|d| !d.trim().is_empty())
        })
        .unwrap_or_else(|| first_line(&extracted.output));
    let agent_type = completion
        .and_then(|c| c.agent)
        .or_else(|| extracted.subagent_type.clone())
        .map(|t| t.to_ascii_lowercase());
    let executor = agent_type
        .clone()
        .unwrap_or_else(|| origin.source.to_owned());
    let category = category_of(agent_type.as_deref().unwrap_or("")).to_owned();
    let completion_text = mask(&completion_text, &mut counts);

    let key = key_hint.unwrap_or_else(|| {
        let digest = Sha256::digest(extracted.output.as_bytes());
        format!("sha256:{}", hex(&digest[..16]))
    });
    let timestamp = zoned_stamp(&settings.now);
    let description_part = match kebab(&completion_text) {
        d if d.is_empty() => {
            let digest = Sha256::digest(extracted.output.as_bytes());
            hex(&digest[..4])
        }
        d => d,
    };
    let type_part = cut_bytes(&safe_name(&executor), MAX_TYPE_BYTES).to_owned();
    let prefix = format!(
        "{}_AGENT-{type_part}_{category}_",
        settings.now.strftime("%Y-%m-%d-%H%M%S")
    );
    // File names are at most 255 bytes on every file system we write to:
    // room is kept for `-<n>` (a second capture of the same name) and `.md`.
    let room = MAX_NAME_BYTES.saturating_sub(prefix.len() + NAME_SUFFIX_ROOM);
    let stem = format!(
        "{prefix}{}",
        cut_bytes(&description_part, room).trim_end_matches('-')
    );
    let dir = settings
        .root
        .join(&category)
        .join(settings.now.strftime("%Y-%m").to_string());
    let doc = CaptureDoc {
        category: category.clone(),
        agent_type: executor.clone(),
        executor,
        completion: completion_text,
        output,
        transcript_path: transcript.display().to_string(),
        timestamp,
        description: extracted
            .description
            .as_deref()
            .map(|d| mask(d, &mut counts)),
        subagent_type: extracted.subagent_type.clone(),
        call_id: extracted.call_id.clone().or(extracted.tool_use_id.clone()),
        session_id: origin.session_id.clone(),
        source: origin.source.to_owned(),
        identity: cwd
            .as_deref()
            .map(Path::new)
            .filter(|c| c.is_absolute() && c.is_dir())
            .map(|c| crate::identify(c, &settings.identity)),
        cwd,
        redactions: 0,
    };
    let doc = CaptureDoc {
        redactions: counts.values().sum(),
        ..doc
    };
    write_once(&settings.root, &key, &dir, &stem, &doc.render()).map(|written| match written {
        Some(path) => CaptureOutcome::Captured {
            path,
            category,
            agent_type: type_part,
            key,
        },
        None => CaptureOutcome::Duplicate { key },
    })
}

/// The longest file name the file systems we write to accept.
const MAX_NAME_BYTES: usize = 255;
/// The agent type's share of a file name.
const MAX_TYPE_BYTES: usize = 48;
/// What `write_once` may append to a stem: `-<n>.md`.
const NAME_SUFFIX_ROOM: usize = 12;

/// Why `find` found nothing, for the log: what was looked at, from the
/// trigger alone (no second read).
fn skip_reason(trigger: &Trigger, settings: &CaptureSettings) -> String {
    let retried = if settings.retries > 0 {
        format!(" (read {} times)", settings.retries + 1)
    } else {
        String::new()
    };
    let h = match trigger {
        Trigger::CodexNotify(n) => {
            return match n.thread_id.as_deref() {
                None => "a Codex notify without thread-id or last-assistant-message".to_owned(),
                Some(thread) => format!(
                    "a Codex notify without last-assistant-message, and no answer for its turn in the rollout of thread {thread} under {}",
                    settings.codex_sessions.display()
                ),
            };
        }
        Trigger::Hook(h) => h,
    };
    let event = h
        .hook_event_name
        .as_deref()
        .unwrap_or("a hook without hook_event_name");
    let transcript = h.transcript_path.as_deref().unwrap_or("(none)");
    if trigger.origin().source == "codex-hook" {
        return format!(
            "Codex {event} without last_assistant_message, and no answer for its turn in {transcript}"
        );
    }
    match event {
        "Stop" => format!(
            "Stop without last_assistant_message, and no answer of the main agent in the last turn of {transcript}"
        ),
        "PostToolUse" => match h.tool_name.as_deref() {
            Some("Task" | "Agent") => format!(
                "PostToolUse of {}: a background launch or an empty result (its SubagentStop captures it)",
                h.tool_name.as_deref().unwrap_or_default()
            ),
            Some(tool) => format!("PostToolUse of {tool}, not a sub-agent call"),
            None => "PostToolUse without tool_name".to_owned(),
        },
        "SubagentStop" => match h.agent_transcript_path.as_deref() {
            Some(agent) => {
                format!("SubagentStop: no final text in the agent transcript {agent}{retried}")
            }
            // Read once, no retry: see `subagent_stop_before_2_1_47`.
            None => format!(
                "SubagentStop without agent fields (Claude Code before 2.0.42, which writes a sub-agent's output only after this hook returns; its PostToolUse of Task captures it): no earlier output of session {} beside or in {transcript} is left to capture",
                h.session_id.as_deref().unwrap_or("(none)")
            ),
        },
        _ => format!(
            "{event}: no last_assistant_message, and no Task/Agent result in the last turn of {transcript}{retried}"
        ),
    }
}

type FoundCapture = (Extracted, PathBuf, Option<String>, Option<String>);

/// The output, the transcript it came from, the cwd, and the dedupe key when
/// the input names the run.
fn find(
    trigger: &Trigger,
    settings: &CaptureSettings,
    home: Option<&Path>,
) -> Result<Option<FoundCapture>, CaptureError> {
    match trigger {
        Trigger::Hook(h) if trigger.origin().source == "codex-hook" => codex_hook(h, home),
        Trigger::Hook(h) => claude_hook(h, settings, home),
        Trigger::CodexNotify(n) => codex_notify(n, settings),
    }
}

/// The payload's message, else what `read` finds in the transcript at
/// `path` (the agents leave the message out in some versions and events).
fn message_or_read(
    message: Option<&str>,
    path: Option<&Path>,
    read: impl FnOnce(&Path) -> std::io::Result<Option<String>>,
) -> Result<Option<String>, CaptureError> {
    if let Some(message) = message.filter(|m| !m.trim().is_empty()) {
        return Ok(Some(message.to_owned()));
    }
    match path {
        Some(path) => read(path).map_err(io(path)),
        None => Ok(None),
    }
}

fn claude_hook(
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
        match claude(&transcript).map_err(io(&transcript))? {
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
fn codex_hook(h: &HookInput, home: Option<&Path>) -> Result<Option<FoundCapture>, CaptureError> {
    let subagent = h.agent_id.is_some();
    let transcript = h
        .agent_transcript_path
        .as_deref()
        .filter(|_| subagent)
        .or(h.transcript_path.as_deref())
        .map(|p| expand_home(p, home));
    let message = message_or_read(
        h.last_assistant_message.as_deref(),
        transcript.as_deref(),
        |path| codex_turn_answer(path, h.turn_id.as_deref()),
    )?;
    let Some(output) = message else {
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
    Ok(Some((
        extracted,
        transcript.unwrap_or_default(),
        h.cwd.clone(),
        key,
    )))
}

/// Codex `notify`: it fires for every agent's turn. A sub-agent's turn
/// (its rollout says `thread_source: "subagent"`; the payload has no
/// `client`) is that sub-agent's output; a main turn is the main agent's
/// answer. The rollout is read back to the turn's start only.
fn codex_notify(
    n: &CodexNotify,
    settings: &CaptureSettings,
) -> Result<Option<FoundCapture>, CaptureError> {
    let rollout = n
        .thread_id
        .as_deref()
        .and_then(|id| find_rollout(&settings.codex_sessions, id));
    let thread = rollout.as_deref().map(codex_thread).unwrap_or_default();
    let subagent = thread.subagent || (rollout.is_none() && n.client.is_none());
    let message = message_or_read(
        n.last_assistant_message.as_deref(),
        rollout.as_deref(),
        |path| codex_turn_answer(path, n.turn_id.as_deref()),
    )?;
    let Some(output) = message else {
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
    Ok(Some((
        extracted,
        rollout.unwrap_or_default(),
        n.cwd.clone(),
        key,
    )))
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

fn first_line(text: &str) -> String {
    text.lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .map(|l| l.trim_start_matches('#').trim().chars().take(120).collect())
        .unwrap_or_default()
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// `2026-01-25 09:12:00 JST`: the zone's abbreviation when it has one, the
/// numeric offset otherwise.
pub fn zoned_stamp(now: &jiff::Zoned) -> String {
    let abbreviation = now.strftime("%Z").to_string();
    if abbreviation.chars().any(|c| c.is_ascii_alphabetic()) {
        format!("{} {abbreviation}", now.strftime("%Y-%m-%d %H:%M:%S"))
    } else {
        now.strftime("%Y-%m-%d %H:%M:%S %:z").to_string()
    }
}

/// Writes `content` as a new file for `key` unless `key` was captured
/// before: under an exclusive lock of the memory root, the key index is
/// read, the file is created without ever overwriting (`-2`, `-3`... on a
/// name collision) from a complete temporary file, and the key is recorded.
fn write_once(
    root: &Path,
    key: &str,
    dir: &Path,
    stem: &str,
    content: &str,
) -> Result<Option<PathBuf>, CaptureError> {
    let meta = root.join(".agentmem");
    std::fs::create_dir_all(&meta).map_err(io(&meta))?;
    let lock_path = meta.join("capture.lock");
    let lock = OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&lock_path)
        .map_err(io(&lock_path))?;
    lock.lock().map_err(io(&lock_path))?;

    if crate::keys::CapturedKeys::open(root).contains(key) {
        return Ok(None);
    }
    std::fs::create_dir_all(dir).map_err(io(dir))?;
    let mut temp = tempfile::Builder::new()
        .prefix(".capture-")
        .suffix(".tmp")
        .tempfile_in(dir)
        .map_err(io(dir))?;
    temp.write_all(content.as_bytes()).map_err(io(dir))?;
    let mut attempt = 1;
    let path = loop {
        let name = if attempt == 1 {
            format!("{stem}.md")
        } else {
            format!("{stem}-{attempt}.md")
        };
        let candidate = dir.join(name);
        match temp.persist_noclobber(&candidate) {
            Ok(_) => break candidate,
            Err(e) if e.error.kind() == std::io::ErrorKind::AlreadyExists && attempt < 1000 => {
                temp = e.file;
                attempt += 1;
            }
            Err(e) => return Err(io(&candidate)(e.error)),
        }
    };
    crate::keys::CapturedKeys::record(root, key).map_err(io(&meta.join("captured-keys.d")))?;
    Ok(Some(path))
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
