//! One capture: from a hook's input to a file in the memory folder.

use std::collections::BTreeMap;
use std::fs::OpenOptions;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::time::Duration;

use agentctx_types::{CodexNotify, HookInput};
use sha2::{Digest, Sha256};

use crate::completion::{category_of, find_completion};
use crate::extract::Extracted;
use crate::format::{CaptureDoc, cut_bytes, kebab, safe_name};
use crate::redact::redact;

mod claude;
mod codex;
mod pending;

pub use pending::PENDING_TTL_SECONDS;

/// The key of a hook input's `other` under which `agentctx hook` names the
/// agent (`gemini`, `copilot`, ...) whose payload it translated.
pub const AGENT_KEY: &str = "agentctx_agent";

/// The key of a hook input's `other` under which `agentctx hook` names
/// what brought the capture (`gemini-hook`, `cline-plugin`): the agent's
/// profile says it.
pub const SOURCE_KEY: &str = "agentctx_capture_source";

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
    /// Re-reads of a transcript whose result is not flushed yet (the
    /// wait's bound is `retries` x `retry_delay`).
    pub retries: u32,
    /// The longest wait between re-reads (a sub-agent's own transcript is
    /// read again as soon as it changes).
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
        /// Where the output was read, and what it took.
        provenance: Provenance,
    },
    /// This run was captured before; nothing was written.
    Duplicate {
        /// The dedupe key.
        key: String,
    },
    /// The run's output is not written yet where this hook can read it:
    /// the payload is kept for a later hook (the `PostToolUse` of the
    /// sub-agent's tool, or the next capture), which completes it.
    Pending {
        /// The run's dedupe key.
        key: String,
        /// What was looked at, and who completes it.
        reason: String,
    },
    /// Nothing to capture, and why.
    Skipped {
        /// Why.
        reason: String,
    },
}

/// Where a capture read its output: what its log line names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OutputSource {
    /// The hook's (or notify's) own fields: `last_assistant_message`.
    Payload,
    /// The sub-agent's own transcript.
    AgentTranscript,
    /// The parent's result of its sub-agent tool (`PostToolUse`'s
    /// `tool_response`).
    ToolResult,
    /// The session's transcript: a sub-agent's sidechain in it (Claude
    /// Code 1.0.x), a `Task` result, the main agent's answer.
    SessionTranscript,
    /// A Codex rollout.
    Rollout,
}

impl std::fmt::Display for OutputSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Self::Payload => "the payload",
            Self::AgentTranscript => "the agent transcript",
            Self::ToolResult => "the parent's tool result",
            Self::SessionTranscript => "the session transcript",
            Self::Rollout => "the rollout",
        })
    }
}

/// How a capture came by its output.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Provenance {
    /// Where it was read.
    pub source: OutputSource,
    /// How long the capture waited for it to be written.
    pub waited: Duration,
    /// The event of the earlier hook that could not read it and left it
    /// pending ([`CaptureOutcome::Pending`]), which this capture completes.
    pub completes: Option<String>,
}

/// `from the agent transcript after 210 ms; completes what SubagentStop
/// left pending`.
impl std::fmt::Display for Provenance {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "from {}", self.source)?;
        if !self.waited.is_zero() {
            write!(f, " after {} ms", self.waited.as_millis())?;
        }
        if let Some(event) = &self.completes {
            write!(f, "; completes what {event} left pending")?;
        }
        Ok(())
    }
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
    /// A capture left pending whose output never appeared.
    #[error("lost {key}: {reason}")]
    Lost {
        /// The run's dedupe key (or the unreadable record).
        key: String,
        /// What was looked at, and since when.
        reason: String,
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
    /// The agent: `claude`, `codex`, `gemini`, ...
    pub source_app: String,
    /// What brought it: `claude-hook`, `codex-notify`, `cline-plugin`, ...
    pub source: String,
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
                source_app: "codex".to_owned(),
                source: "codex-notify".to_owned(),
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
                // The hook names the agent, and what brought the capture,
                // when it knows them.
                let text = |key: &str| h.other.get(key).and_then(serde_json::Value::as_str);
                let (source_app, source) = match (text(AGENT_KEY), text(SOURCE_KEY)) {
                    (Some(agent), Some(source)) => (agent.to_owned(), source.to_owned()),
                    _ if codex => ("codex".to_owned(), "codex-hook".to_owned()),
                    _ => ("claude".to_owned(), "claude-hook".to_owned()),
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
///
/// An output the hook names but that is not written yet when the wait
/// (`retries` x `retry_delay`) ends is [`CaptureOutcome::Pending`]: its
/// payload is kept under the memory root, and the `PostToolUse` of the
/// sub-agent's tool or [`complete_pending`] captures it later, once.
pub fn capture(
    trigger: &Trigger,
    settings: &CaptureSettings,
    home: Option<&Path>,
) -> Result<CaptureOutcome, CaptureError> {
    capture_as(trigger, settings, home, Attempt::Hook)
}

/// Whose attempt a capture is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Attempt {
    /// The hook's own.
    Hook,
    /// A later one, for a pending record (which stays until it succeeds).
    Pending,
}

/// One pending capture's attempt by [`complete_pending`]: where it came
/// from, and how it ended.
#[derive(Debug)]
pub struct PendingAttempt {
    /// The hook that left it.
    pub origin: Origin,
    /// [`CaptureOutcome::Captured`], or why it is dropped
    /// ([`CaptureError::Lost`]).
    pub outcome: Result<CaptureOutcome, CaptureError>,
}

/// Captures what earlier hooks left pending ([`CaptureOutcome::Pending`])
/// and is readable now, each read once (no wait): an attempt for each
/// captured, and for each dropped as lost (its output did not appear
/// within [`PENDING_TTL_SECONDS`], or its record cannot be read). Records
/// still waiting, and runs captured meanwhile (their records are
/// removed), are not reported.
pub fn complete_pending(settings: &CaptureSettings, home: Option<&Path>) -> Vec<PendingAttempt> {
    let once = CaptureSettings {
        retries: 0,
        ..settings.clone()
    };
    let now = settings.now.timestamp().as_second();
    let mut attempts = Vec::new();
    for record in pending::all(&settings.root) {
        let record = match record {
            Ok(record) => record,
            Err((path, why)) => {
                pending::remove(&path);
                attempts.push(PendingAttempt {
                    origin: Trigger::hook(HookInput::default()).origin(),
                    outcome: Err(CaptureError::Lost {
                        key: path.display().to_string(),
                        reason: format!("the pending record cannot be read ({why}): removed"),
                    }),
                });
                continue;
            }
        };
        let trigger = Trigger::hook(record.hook.clone());
        let origin = trigger.origin();
        let outcome = capture_as(&trigger, &once, home, Attempt::Pending);
        let expired = now.saturating_sub(record.since) > PENDING_TTL_SECONDS;
        let outcome = match outcome {
            Ok(CaptureOutcome::Captured { .. }) => outcome,
            Ok(CaptureOutcome::Duplicate { .. }) => continue,
            Ok(CaptureOutcome::Pending { .. } | CaptureOutcome::Skipped { .. }) | Err(_)
                if !expired =>
            {
                continue;
            }
            Ok(CaptureOutcome::Pending { reason, .. } | CaptureOutcome::Skipped { reason }) => {
                let _ = pending::take(&settings.root, &record.key);
                Err(CaptureError::Lost {
                    key: record.key.clone(),
                    reason: format!(
                        "left pending by {} at {}, and still not readable: {reason}",
                        record.hook.hook_event_name.as_deref().unwrap_or("a hook"),
                        stamp_of(record.since, &settings.now)
                    ),
                })
            }
            Err(error) => {
                let _ = pending::take(&settings.root, &record.key);
                Err(CaptureError::Lost {
                    key: record.key.clone(),
                    reason: format!(
                        "left pending by {} at {}, and still not readable: {error}",
                        record.hook.hook_event_name.as_deref().unwrap_or("a hook"),
                        stamp_of(record.since, &settings.now)
                    ),
                })
            }
        };
        attempts.push(PendingAttempt { origin, outcome });
    }
    attempts
}

/// A Unix time in `now`'s zone, as capture files write times.
fn stamp_of(seconds: i64, now: &jiff::Zoned) -> String {
    jiff::Timestamp::from_second(seconds)
        .map(|t| zoned_stamp(&t.to_zoned(now.time_zone().clone())))
        .unwrap_or_else(|_| seconds.to_string())
}

fn capture_as(
    trigger: &Trigger,
    settings: &CaptureSettings,
    home: Option<&Path>,
    attempt: Attempt,
) -> Result<CaptureOutcome, CaptureError> {
    let origin = trigger.origin();
    let located = match find(trigger, settings, home)? {
        Lookup::Found(located) => located,
        Lookup::Captured(key) => {
            pending::take(&settings.root, &key);
            return Ok(CaptureOutcome::Duplicate { key });
        }
        Lookup::NotYet { key, reason } => {
            if attempt == Attempt::Hook
                && let Trigger::Hook(hook) = trigger
            {
                let record = pending::record(
                    &settings.root,
                    &key,
                    hook,
                    settings.now.timestamp().as_second(),
                )
                .map_err(io(&settings.root.join(".agentmem/pending")))?;
                return Ok(CaptureOutcome::Pending {
                    key,
                    reason: format!(
                        "{reason}; kept in {} for the PostToolUse of its Task/Agent call or the next capture",
                        record.display()
                    ),
                });
            }
            return Ok(CaptureOutcome::Pending { key, reason });
        }
        Lookup::Nothing => {
            return Ok(CaptureOutcome::Skipped {
                reason: skip_reason(trigger, settings),
            });
        }
    };
    let Located {
        extracted,
        transcript,
        cwd,
        key: key_hint,
        source,
        waited,
    } = located;
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
    let written = write_once(&settings.root, &key, &dir, &stem, &doc.render())?;
    // Whichever hook captures a run ends what an earlier one left pending.
    let completes = pending::take(&settings.root, &key);
    Ok(match written {
        Some(path) => CaptureOutcome::Captured {
            path,
            category,
            agent_type: type_part,
            key,
            provenance: Provenance {
                source,
                waited,
                completes,
            },
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
        let read = h
            .agent_transcript_path
            .as_deref()
            .filter(|_| h.agent_id.is_some())
            .unwrap_or(transcript);
        let notify = if h.agent_id.is_some() {
            " (its notify, which names the same run, captures it)"
        } else {
            ""
        };
        return format!(
            "Codex {event} without last_assistant_message, and no answer for its turn in {read}, or no such file yet{notify}"
        );
    }
    match event {
        "Stop" => format!(
            "Stop without last_assistant_message, and no answer of the main agent in the last turn of {transcript}"
        ),
        "PostToolUse" => match h.tool_name.as_deref() {
            Some("Task" | "Agent") => format!(
                "PostToolUse of {}: a background launch or an empty result (its SubagentStop captures it, or left it pending for the next capture)",
                h.tool_name.as_deref().unwrap_or_default()
            ),
            Some(tool) => format!("PostToolUse of {tool}, not a sub-agent call"),
            None => "PostToolUse without tool_name".to_owned(),
        },
        "SubagentStop" => match h.agent_transcript_path.as_deref() {
            Some(agent) => {
                format!("SubagentStop: no final text in the agent transcript {agent}{retried}")
            }
            // Read once, no retry: see `claude::before_2_0_42`.
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

/// An output found, and what the capture needs with it.
struct Located {
    /// The output and what is known of its run.
    extracted: Extracted,
    /// The transcript it belongs to (for the frontmatter).
    transcript: PathBuf,
    /// The run's cwd.
    cwd: Option<String>,
    /// The dedupe key, when the input names the run.
    key: Option<String>,
    /// Where it was read.
    source: OutputSource,
    /// How long the capture waited for it.
    waited: Duration,
}

impl Located {
    /// Found at once, with nothing waited.
    fn new(
        extracted: Extracted,
        transcript: PathBuf,
        cwd: Option<String>,
        key: Option<String>,
        source: OutputSource,
    ) -> Self {
        Self {
            extracted,
            transcript,
            cwd,
            key,
            source,
            waited: Duration::ZERO,
        }
    }
}

/// What a trigger's search found.
enum Lookup {
    /// The output.
    Found(Located),
    /// The run (its key known before reading anything) was captured.
    Captured(String),
    /// The run's output is not written yet where it will be: a later hook
    /// can capture it.
    NotYet {
        /// The run's key.
        key: String,
        /// What was looked at, how long.
        reason: String,
    },
    /// Nothing to capture.
    Nothing,
}

impl From<Option<Located>> for Lookup {
    fn from(found: Option<Located>) -> Self {
        found.map_or(Self::Nothing, Self::Found)
    }
}

/// The output, the transcript it came from, the cwd, and the dedupe key when
/// the input names the run.
fn find(
    trigger: &Trigger,
    settings: &CaptureSettings,
    home: Option<&Path>,
) -> Result<Lookup, CaptureError> {
    match trigger {
        Trigger::Hook(h) if trigger.origin().source == "codex-hook" => {
            codex::codex_hook(h, home).map(Lookup::from)
        }
        Trigger::Hook(h) => claude::claude_hook(h, settings, home),
        Trigger::CodexNotify(n) => codex::codex_notify(n, settings).map(Lookup::from),
    }
}

/// The payload's message, else what `read` finds in the transcript at
/// `path` (the agents leave the message out in some versions and events),
/// with where it was found. A transcript that does not exist (yet) holds
/// nothing.
fn message_or_read(
    message: Option<&str>,
    path: Option<&Path>,
    read_from: OutputSource,
    read: impl FnOnce(&Path) -> std::io::Result<Option<String>>,
) -> Result<Option<(String, OutputSource)>, CaptureError> {
    if let Some(message) = message.filter(|m| !m.trim().is_empty()) {
        return Ok(Some((message.to_owned(), OutputSource::Payload)));
    }
    let Some(path) = path else {
        return Ok(None);
    };
    match read(path) {
        Ok(found) => Ok(found.map(|text| (text, read_from))),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(io(path)(e)),
    }
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
