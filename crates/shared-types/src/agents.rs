//! The AGENTS.md hierarchy: its config section and what the resolver returns.

use std::path::PathBuf;

#[cfg(feature = "schema")]
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::PositiveInt;

/// The `agents` section of the config, exactly the public v1 schema.
///
/// Keys are camelCase, unknown keys are rejected, limits must be positive.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields, default)]
pub struct AgentsConfig {
    /// `false` turns off the initial chain and the resolver.
    pub enabled: bool,
    /// How the project root is found.
    pub root: RootConfig,
    /// Limits of the initial chain loaded at session start.
    pub initial: InitialConfig,
    /// The lazy resolver that reports AGENTS.md files as paths are touched.
    pub resolver: ResolverConfig,
}

impl Default for AgentsConfig {
    fn default() -> Self {
        Self {
            enabled: true,
            root: RootConfig::default(),
            initial: InitialConfig::default(),
            resolver: ResolverConfig::default(),
        }
    }
}

/// `agents.root`: how the project root is found.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields, default)]
pub struct RootConfig {
    /// A fixed root; skips the marker walk. Must exist.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub project_root_override: Option<PathBuf>,
    /// File or directory names whose presence marks a project root.
    pub markers: Vec<String>,
    /// `true`: the marker walk may go up to `/`; `false`: it stops at `$HOME`.
    pub stop_at_fs_root: bool,
}

/// The markers used when neither config nor environment names any.
pub const DEFAULT_MARKERS: [&str; 3] = [".codelia", ".git", ".jj"];

impl Default for RootConfig {
    fn default() -> Self {
        Self {
            project_root_override: None,
            markers: DEFAULT_MARKERS.iter().map(|m| (*m).to_owned()).collect(),
            stop_at_fs_root: true,
        }
    }
}

/// `agents.initial`: limits of the chain loaded at session start.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields, default)]
pub struct InitialConfig {
    /// At most this many AGENTS.md files are adopted.
    pub max_files: PositiveInt,
    /// At most this many bytes of AGENTS.md content, summed; files are never cut.
    pub max_bytes: PositiveInt,
}

const DEFAULT_INITIAL_MAX_FILES: PositiveInt = PositiveInt::known(16);
const DEFAULT_INITIAL_MAX_BYTES: PositiveInt = PositiveInt::known(262_144);
const DEFAULT_MAX_FILES_PER_RESOLVE: PositiveInt = PositiveInt::known(8);

impl Default for InitialConfig {
    fn default() -> Self {
        Self {
            max_files: DEFAULT_INITIAL_MAX_FILES,
            max_bytes: DEFAULT_INITIAL_MAX_BYTES,
        }
    }
}

/// `agents.resolver`: the lazy resolver.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields, default)]
pub struct ResolverConfig {
    /// `false`: the resolver never reports anything.
    pub enabled: bool,
    /// At most this many files per resolve; the rest come with the next call.
    pub max_files_per_resolve: PositiveInt,
}

impl Default for ResolverConfig {
    fn default() -> Self {
        Self {
            enabled: true,
            max_files_per_resolve: DEFAULT_MAX_FILES_PER_RESOLVE,
        }
    }
}

/// What a resolve returns: AGENTS.md files that are new or changed for a path.
///
/// Paths and versions only, never file contents.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ResolvedAgents {
    /// Root-most first.
    pub files: Vec<ResolvedAgentFile>,
}

/// One AGENTS.md file offered by the resolver.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ResolvedAgentFile {
    /// Absolute path of the file.
    pub path: PathBuf,
    /// Modification time in whole milliseconds since the Unix epoch.
    pub mtime_ms: u64,
    /// Size in bytes.
    pub size_bytes: u64,
    /// The model was told of another version of this file before: it
    /// changed since (never set in the initial bundle or session state).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub changed: bool,
    /// Why agentctx cannot read the file (its permissions), when it
    /// cannot: the model is told it exists and that its instructions are
    /// unknown (the agent cannot read it either).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unreadable: Option<String>,
}

/// The `type` attribute of a `<system-reminder>` block.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub enum SystemReminderType {
    /// New or changed AGENTS.md files apply to a path.
    #[serde(rename = "agents.resolve.paths")]
    AgentsResolvePaths,
    /// The session resumed with a different cwd, root or markers.
    #[serde(rename = "session.resume.diff")]
    SessionResumeDiff,
    /// A tool output was cut to fit a budget.
    #[serde(rename = "tool.output.trimmed")]
    ToolOutputTrimmed,
    /// A tool call or file was refused by a rule.
    #[serde(rename = "permission.decision")]
    PermissionDecision,
}

impl SystemReminderType {
    /// The dotted name used in the `type` attribute.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::AgentsResolvePaths => "agents.resolve.paths",
            Self::SessionResumeDiff => "session.resume.diff",
            Self::ToolOutputTrimmed => "tool.output.trimmed",
            Self::PermissionDecision => "permission.decision",
        }
    }
}

impl std::fmt::Display for SystemReminderType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// An AGENTS.md file that the initial chain left out, and why.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct OmittedAgentFile {
    /// Absolute path of the file.
    pub path: PathBuf,
    /// Size in bytes.
    pub size_bytes: u64,
    /// Which limit left it out.
    pub reason: OmitReason,
}

/// The limit that left a file out of the initial chain.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub enum OmitReason {
    /// `agents.initial.maxFiles` was reached.
    #[serde(rename = "maxFiles")]
    MaxFiles,
    /// `agents.initial.maxBytes` would have been exceeded.
    #[serde(rename = "maxBytes")]
    MaxBytes,
}

/// `agentctx agents init --json`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct InitialBundle {
    /// The adopted files, root-most first.
    pub files: Vec<ResolvedAgentFile>,
    /// Files left out by a limit; the resolver offers them later.
    pub omitted: Vec<OmittedAgentFile>,
    /// The rendered `<agents_context scope="initial">` message ("" when there is no chain).
    pub text: String,
}

/// `agentctx root --json`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RootInfo {
    /// The project root.
    pub root: PathBuf,
    /// The working directory it was found from.
    pub cwd: PathBuf,
    /// How it was found.
    pub source: RootSource,
    /// The marker that decided it, when `source` is `marker`.
    pub marker: Option<String>,
}

/// How the project root was found.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum RootSource {
    /// `projectRootOverride` or `CODELIA_AGENTS_ROOT`.
    Override,
    /// A marker in the root directory.
    Marker,
    /// No marker: the working directory itself.
    Cwd,
}

/// `agentctx session resume --json`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ResumeReport {
    /// `[before, after]` when the working directory changed.
    pub cwd: Option<[PathBuf; 2]>,
    /// `[before, after]` when the project root changed.
    pub root: Option<[PathBuf; 2]>,
    /// `[before, after]` when the markers changed.
    pub markers: Option<[Vec<String>; 2]>,
    /// AGENTS.md files on the new chain to re-check.
    pub recheck: Vec<ResolvedAgentFile>,
    /// The rendered `session.resume.diff` reminder ("" when nothing differs).
    pub text: String,
}

/// `agentctx trim --json`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct TrimReport {
    /// Bytes removed (0 when the output fit).
    pub removed_bytes: u64,
    /// Lines those bytes touched.
    pub removed_lines: u64,
    /// The output to hand on.
    pub text: String,
    /// The id the cut part is kept under (`agentctx output get ID`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
}

/// `agentctx output get --json`: one page of a kept output part.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct OutputPage {
    /// The id.
    pub id: String,
    /// Where the page starts, in bytes.
    pub offset: u64,
    /// Where the next page starts; absent at the end.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_offset: Option<u64>,
    /// The part's size in bytes.
    pub total_bytes: u64,
    /// The page.
    pub text: String,
}
