//! The events log: one JSON line per capture attempt.

use std::io::Write as _;
use std::path::Path;

use serde::Serialize;

/// One capture attempt, as appended to `AGENTMEM_EVENTS_PATH`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct CaptureEvent {
    /// When (local time, as in capture files).
    pub timestamp: String,
    /// `claude` or `codex`.
    pub source_app: String,
    /// `claude-hook`, `codex-notify` or `codex-hook`.
    pub source: String,
    /// The agent's session (thread) id.
    pub session_id: Option<String>,
    /// The hook event, e.g. `SubagentStop` or `agent-turn-complete`.
    pub hook_event_type: Option<String>,
    /// `captured`, `duplicate`, `skipped` or `failed`.
    pub outcome: String,
    /// The file written, when one was.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub capture_path: Option<String>,
    /// Its category.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub category: Option<String>,
    /// The agent type in its name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub agent_type: Option<String>,
    /// What went wrong, for `failed` (and why, for `skipped`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// Appends the event as one line with one `write` in append mode, so lines
/// of concurrent hooks never interleave.
pub fn append_event(path: &Path, event: &CaptureEvent) -> std::io::Result<()> {
    let mut line = serde_json::to_vec(event).map_err(std::io::Error::other)?;
    line.push(b'\n');
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)?;
    }
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)?;
    file.write_all(&line)
}
