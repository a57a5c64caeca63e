//! AgentMem: its config section.

use std::path::PathBuf;

#[cfg(feature = "schema")]
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The `agentmem` section of the config.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(deny_unknown_fields, default)]
pub struct AgentMemConfig {
    /// Memory folder; unset means `~/.agent-kit/MEMORY`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub root: Option<PathBuf>,
    /// When set, one JSON line per capture attempt is appended here.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub events_path: Option<PathBuf>,
    /// Re-reads of a transcript whose result is not flushed yet.
    pub retries: u32,
    /// Wait between those re-reads, in milliseconds.
    pub retry_delay_ms: u64,
    /// Mask secrets before anything is written.
    pub redact: bool,
    /// Also write capture failures to stderr (they always go to the log file).
    pub debug: bool,
    /// Also capture on `Stop` hooks (the main agent's final answer), not only `SubagentStop`.
    pub capture_on_stop: bool,
    /// Also capture the agents' internal helpers (Claude Code's `/compact`
    /// summary, session recaps, prompt suggestions: `agent_type` empty).
    pub capture_internal_agents: bool,
    /// Where Codex keeps its rollouts; unset means `~/.codex/sessions`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub codex_sessions_dir: Option<PathBuf>,
    /// Captured work given back to later sessions of the same project.
    pub recall: RecallConfig,
    /// Project identities merged or split by hand (user config only: a
    /// repository must not choose whose memory its sessions read).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub identities: Vec<IdentityRule>,
    /// A PostgreSQL store shared by a team or a fleet
    /// (`postgres://user@host:5432/db?sslmode=require`): every capture is
    /// sent to it too, and memory is read from it (user config only). Its
    /// password comes from `AGENTMEM_STORE_PASSWORD` or `PGPASSWORD`, or
    /// from `store_password_file`, never from a rule file.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub store: Option<String>,
    /// A file holding the store's password (its first line; user config only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub store_password_file: Option<PathBuf>,
}

/// `agentmem.recall`: the index of past captures a session starts with.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(deny_unknown_fields, default)]
pub struct RecallConfig {
    /// Give sessions the `<memory_index>` of their project's captures.
    pub enabled: bool,
    /// The index's budget in o200k tokens (the whole block, tags included).
    pub max_tokens: u32,
    /// Sub-agents get the index too (they start with a context of their
    /// own; off, so memory is not paid for once per sub-agent).
    pub subagents: bool,
    /// Only these categories (`RESEARCH`, `DECISION`, ...); empty: all.
    pub categories: Vec<String>,
    /// Captures older than this many days are left out (0: no limit).
    pub max_age_days: u32,
    /// Other project identities whose captures are recalled too (user
    /// config only), e.g. `github.com/acme/shared-lib`.
    pub also: Vec<String>,
}

impl Default for RecallConfig {
    fn default() -> Self {
        Self {
            enabled: true,
            max_tokens: 800,
            subagents: false,
            categories: Vec::new(),
            max_age_days: 0,
            also: Vec::new(),
        }
    }
}

/// One rule of `agentmem.identities`: the projects `match` names share the
/// identity `as` (merge two repositories, or split a folder off its
/// repository).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct IdentityRule {
    /// A repository (`github.com/acme/api`, as `agentctx mem identity`
    /// prints it), a root commit id, or an absolute folder (it and
    /// everything below it).
    #[serde(rename = "match")]
    pub matches: String,
    /// The identity those projects have instead.
    #[serde(rename = "as")]
    pub id: String,
}

/// Which repository a capture or a session belongs to (docs/agentmem.md,
/// "Project identity"). Two belong to the same project when any of their
/// keys agree: the remote, the root commit, the name an identity rule gave,
/// or (outside git) the folder.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct ProjectIdentity {
    /// `origin`'s URL without scheme, user, port and `.git`, host in lower
    /// case (`github.com/acme/api`); empty without one.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub remote: String,
    /// The commit reached from HEAD by first parents (the same in every
    /// clone and worktree); empty when unknown (shallow, no commit yet).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub root_commit: String,
    /// The identity an `agentmem.identities` rule gave (the other keys are
    /// then empty).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub name: String,
    /// The working tree's top folder (the folder itself outside git).
    pub top: PathBuf,
    /// The package inside it (`crates/core`, `packages/web`), relative to
    /// `top`, `/`-separated; empty at the top.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub package: String,
}

impl ProjectIdentity {
    /// The key shown to people and in the index's opening tag: the name,
    /// else the remote, else the root commit, else the folder.
    pub fn label(&self) -> String {
        if !self.name.is_empty() {
            self.name.clone()
        } else if !self.remote.is_empty() {
            self.remote.clone()
        } else if !self.root_commit.is_empty() {
            // By characters: the id comes from a file anyone could write.
            let short: String = self.root_commit.chars().take(12).collect();
            format!("commit {short}")
        } else {
            self.top.display().to_string()
        }
    }
}

/// The `<memory_index>` a session starts with (`mem index --json`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct MemoryIndex {
    /// The project it is for.
    pub identity: ProjectIdentity,
    /// Captures of this project (after the recall filters).
    pub matches: u64,
    /// Entries shown within the budget.
    pub shown: u64,
    /// The block; empty when the project has no captures.
    pub text: String,
}

impl Default for AgentMemConfig {
    fn default() -> Self {
        Self {
            root: None,
            events_path: None,
            retries: 2,
            retry_delay_ms: 200,
            redact: true,
            debug: false,
            capture_on_stop: false,
            capture_internal_agents: false,
            codex_sessions_dir: None,
            recall: RecallConfig::default(),
            identities: Vec::new(),
            store: None,
            store_password_file: None,
        }
    }
}

/// A capture as the memory index knows it (`mem list --json`, and each
/// hit of `mem search --json`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct CaptureRecord {
    /// The file name without `.md`.
    pub id: String,
    /// The file.
    pub path: PathBuf,
    /// `RESEARCH`, `DECISION`, ...
    pub category: String,
    /// The agent type (`executor`).
    pub agent: String,
    /// `claude-hook`, `codex-notify`, `codex-hook`, or empty.
    pub source: String,
    /// The session id, or empty.
    pub session: String,
    /// The capture's cwd, or empty.
    pub project: String,
    /// `YYYY-MM-DD HH:MM:SS` local time (from the file name when it has one).
    pub time: String,
    /// The completion message.
    pub completion: String,
    /// The description, or empty.
    pub description: String,
    /// The project it belongs to; captures written before identities
    /// have only `top` (their cwd).
    #[serde(default)]
    pub identity: ProjectIdentity,
}

/// A search hit (`mem search --json` is a list of these).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct SearchHit {
    /// The capture.
    #[serde(flatten)]
    pub record: CaptureRecord,
    /// A short excerpt with matches in `[brackets]`.
    pub snippet: String,
    /// bm25 score (lower is better).
    pub score: f64,
}

/// `mem show --json`: the capture and its file's text.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct CaptureShown {
    /// The capture.
    pub record: CaptureRecord,
    /// The whole file, front matter included.
    pub text: String,
}

/// `mem context --json`: the block of past captures for a prompt.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct MemoryContext {
    /// The query as given.
    pub query: String,
    /// Captures that matched.
    pub matches: u64,
    /// Captures shown within the budget.
    pub shown: u64,
    /// The `<memory_context>` block.
    pub text: String,
}

/// `mem stats --json`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct MemoryStats {
    /// Captures indexed.
    pub total: u64,
    /// Per category.
    pub by_category: std::collections::BTreeMap<String, u64>,
    /// Per agent type.
    pub by_agent: std::collections::BTreeMap<String, u64>,
    /// Per month (`YYYY-MM`).
    pub by_month: std::collections::BTreeMap<String, u64>,
    /// Bytes of the index file.
    pub index_bytes: u64,
    /// Bytes of the capture files.
    pub captures_bytes: u64,
}

/// One capture attempt, one JSON line of `AGENTMEM_EVENTS_PATH`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
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
    /// `captured`, `duplicate`, `pending`, `skipped` or `failed`.
    pub outcome: String,
    /// The file written, when one was.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub capture_path: Option<String>,
    /// Its category.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub category: Option<String>,
    /// The agent type in its name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent_type: Option<String>,
    /// What went wrong, for `failed` (and why, for `skipped`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_label_never_cuts_a_character() {
        let identity = ProjectIdentity {
            root_commit: "é".repeat(20),
            ..ProjectIdentity::default()
        };
        assert_eq!(identity.label(), format!("commit {}", "é".repeat(12)));
    }
}
