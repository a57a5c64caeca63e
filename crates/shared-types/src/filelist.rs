//! The project file list: its config section.

#[cfg(feature = "schema")]
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::PositiveInt;

/// The `file_list_context` section of the config.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(deny_unknown_fields, default)]
pub struct FileListConfig {
    /// `false`: no file list in the composed context.
    pub enabled: bool,
    /// Deepest level listed, as `tree -L` counts: the root's children are
    /// depth 1 and every folder of a chain of single-child folders is a
    /// level. Unset: no limit (the entry limit or the token budget cuts by
    /// the ranking).
    pub max_depth: Option<PositiveInt>,
    /// How the listing is rendered.
    pub format: FileListFormat,
    /// Where the composed context puts the listing.
    pub position: FileListPosition,
    /// At most this many entries are listed, the most valuable first.
    /// Unset: 500, or no limit with a `token_budget`.
    pub max_files: Option<PositiveInt>,
    /// Fill this many tokens (o200k_base) with the most valuable listing
    /// that fits: all of it when it fits, else at least 90% of the budget.
    pub token_budget: Option<PositiveInt>,
    /// gitignore-style patterns added to the default excludes.
    pub exclude_patterns: Vec<String>,
    /// When non-empty, only matching files are listed.
    pub include_patterns: Vec<String>,
    /// Add each file's size in bytes.
    pub include_file_sizes: bool,
    /// Add each file's modification date.
    pub include_last_modified: bool,
    /// Lifetime of cached remote listings; 0 disables the cache.
    pub cache_ttl_secs: u64,
    /// Where remote listings are cached: a folder several processes and
    /// machines may share (a shared volume); `~/` is the home directory.
    /// Unset: `$XDG_CACHE_HOME/agentctx/filelist`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cache_dir: Option<String>,
    /// Walks and remote requests stop after this long and list what they found.
    pub timeout_secs: PositiveInt,
}

const DEFAULT_TIMEOUT_SECS: PositiveInt = PositiveInt::known(30);

impl Default for FileListConfig {
    fn default() -> Self {
        Self {
            enabled: true,
            max_depth: None,
            format: FileListFormat::Tree,
            position: FileListPosition::SystemPrompt,
            max_files: None,
            token_budget: None,
            exclude_patterns: Vec::new(),
            include_patterns: Vec::new(),
            include_file_sizes: false,
            include_last_modified: false,
            cache_ttl_secs: 3600,
            cache_dir: None,
            timeout_secs: DEFAULT_TIMEOUT_SECS,
        }
    }
}

/// The rendering of a file list.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum FileListFormat {
    /// Two-space indented tree, directories first.
    #[default]
    Tree,
    /// One root-relative path per line.
    Flat,
    /// Important entries in full, the rest summarised per directory.
    Compact,
}

crate::from_name!(FileListFormat, "file list format", [
    "tree" => FileListFormat::Tree,
    "flat" => FileListFormat::Flat,
    "compact" => FileListFormat::Compact,
]);

/// Where the composed context places the file list.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum FileListPosition {
    /// Appended to the system prompt.
    #[default]
    SystemPrompt,
    /// A prefix of the first user message.
    UserMessage,
}

/// `agentctx files --json`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct FileListReport {
    /// The name in the header: the root's directory name, or `owner/repo@ref`.
    pub root: String,
    /// The format used (a token budget may switch to `compact`).
    pub format: FileListFormat,
    /// `generated=` as written; `null` without a timestamp.
    pub generated: Option<String>,
    /// Files shown (a grouped run counts its files).
    pub files_shown: u64,
    /// Directories shown.
    pub dirs_shown: u64,
    /// Files after filters.
    pub files_total: u64,
    /// Directories after filters.
    pub dirs_total: u64,
    /// Whether anything was cut.
    pub partial: bool,
    /// Every reason it was cut.
    pub partial_reasons: Vec<String>,
    /// Tokens of `text` with the chosen tokenizer.
    pub tokens: Option<u64>,
    /// The depth limit actually used (only one given); `null`: none.
    pub max_depth: Option<u64>,
    /// The entry limit actually used; `null`: none.
    pub max_files: Option<u64>,
    /// The `<project_files>` block.
    pub text: String,
}
