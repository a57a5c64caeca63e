//! Per-session state of the AGENTS.md hierarchy, shared by hook processes.

use std::collections::BTreeMap;
use std::path::PathBuf;

#[cfg(feature = "schema")]
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::ResolvedAgentFile;

/// The version written into new session files.
pub const SESSION_STATE_VERSION: u32 = 1;

/// What a session has loaded and been told, persisted as JSON between hook runs.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SessionState {
    /// Format version; a file with another version is rebuilt.
    pub version: u32,
    /// The working directory the session last ran in (absolute, canonical).
    pub cwd: PathBuf,
    /// The project root for that directory (absolute, canonical).
    pub root: PathBuf,
    /// The markers that found the root.
    pub markers: Vec<String>,
    /// The AGENTS.md files of the initial bundle, root-most first.
    pub initial_files: Vec<ResolvedAgentFile>,
    /// Directories whose AGENTS.md has been given or offered to the model.
    pub covered_dirs: Vec<PathBuf>,
    /// Every AGENTS.md the model has been given or told about, with the version it saw.
    pub loaded_versions: BTreeMap<PathBuf, LoadedVersion>,
}

/// The version of an AGENTS.md file that the model has seen.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct LoadedVersion {
    /// Modification time in whole milliseconds since the Unix epoch.
    pub mtime_ms: u64,
    /// Size in bytes.
    pub size_bytes: u64,
    /// Device and inode, so one file reached by two paths is offered once.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file_id: Option<FileId>,
}

/// A file's identity on its file system: device and inode numbers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct FileId {
    /// Device number.
    pub dev: u64,
    /// Inode number.
    pub ino: u64,
}

/// The version written into new session anchors.
pub const SESSION_ANCHOR_VERSION: u32 = 1;

/// What a session's rules are decided from, fixed when the session starts
/// (at `SessionStart`, or at its first hook) and used by every later hook
/// call of the session and of its sub-agents, whatever directory a call
/// reports: the project root, the effective config (the user's file, the
/// root's `.agentctx.yaml`, the environment and the hook command's flags)
/// and the rule file's text. Written once; a new session decides anew.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SessionAnchor {
    /// Format version; an anchor of another version is decided again.
    pub version: u32,
    /// The directory the project was found from (for Claude Code,
    /// `CLAUDE_PROJECT_DIR`: the directory the session was started in).
    pub start_dir: PathBuf,
    /// The project root (absolute, canonical).
    pub root: PathBuf,
    /// The effective config.
    pub config: crate::Config,
    /// The rule file as it was read at the start.
    pub rule_file: crate::RuleFileCapture,
    /// Which hook event decided it.
    pub decided_at: String,
}
