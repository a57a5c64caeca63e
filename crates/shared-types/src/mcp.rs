//! `agentctx mcp`: the inputs of its tools. Every tool answers with text
//! (what a model reads), at most `max_tokens` o200k tokens of it (default
//! [`DEFAULT_MAX_TOKENS`]), whole lines; a longer answer ends with a line
//! naming the `cursor` that continues it.

#[cfg(feature = "schema")]
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A tool's answer budget when the call names none.
pub const DEFAULT_MAX_TOKENS: u32 = 8_000;

/// Paging shared by the tools whose answers can be long.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct Paging {
    /// At most this many o200k tokens of answer (default 8,000).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_tokens: Option<u32>,
    /// Where to continue: the cursor the previous page's last line named.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cursor: Option<u64>,
}

/// `context`: the initial bundle for a folder, or for a remote repository.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct ContextRequest {
    /// The folder (default: the server's working folder).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// `github:OWNER/REPO[@REF]` or `gitlab:GROUP/PROJECT[@REF]` instead of a folder.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub remote: Option<String>,
    /// Paging.
    #[serde(flatten)]
    pub paging: Paging,
}

/// `agents_resolve`: the AGENTS.md files new or changed for these paths
/// since this MCP session last asked (paths and mtimes, never bodies).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct ResolveRequest {
    /// Files or folders the agent is about to touch.
    pub paths: Vec<String>,
}

/// `rules_check`: may this tool be used, may this path be read or written.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct RulesCheckRequest {
    /// A tool name (`Bash`, `Read`, `github/delete_file`, ...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool: Option<String>,
    /// A path to read or write.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// `read` (default) or `write`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub access: Option<String>,
}

/// `files`: the project's file list within a budget, or lines of one file
/// of a remote repository.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct FilesRequest {
    /// The folder (default: the server's working folder).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// `github:OWNER/REPO[@REF]` or `gitlab:GROUP/PROJECT[@REF]` instead of a folder.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub remote: Option<String>,
    /// With `remote`: a file of it to read instead of the list.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    /// With `file`: the lines to read, `FIRST-LAST` (1-based, inclusive;
    /// `FIRST-` to the end); default all.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lines: Option<String>,
    /// Paging.
    #[serde(flatten)]
    pub paging: Paging,
}

/// `mem_search` and `mem_context`: captures of the project for words.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct MemQueryRequest {
    /// Words, "phrases", prefix*, category:X (docs/agentmem.md).
    pub query: String,
    /// Every project's captures, not only this project's.
    #[serde(default)]
    pub all_projects: bool,
    /// Paging.
    #[serde(flatten)]
    pub paging: Paging,
}

/// `mem_get` and `output_get`: one item by the id an index line or a
/// reminder named.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct IdRequest {
    /// The id.
    pub id: String,
    /// Paging.
    #[serde(flatten)]
    pub paging: Paging,
}

/// `mem_save`: an explicit capture, for agents without sub-agent events.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct MemSaveRequest {
    /// What was found or decided; its first line (or a `🎯 COMPLETED:`
    /// line) is its title.
    pub text: String,
    /// Who found it (`researcher`, `architect`, ...): its category follows.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent: Option<String>,
    /// What it was for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
}
