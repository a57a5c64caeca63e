//! JSON that coding agents hand to hook programs.
//!
//! Lenient on purpose: agents add fields over versions, and a hook must never
//! fail because of a field it does not use.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A hook's stdin: Claude Code and Codex hooks (`SessionStart`,
/// `PreToolUse`, `PostToolUse`, `Stop`, `SubagentStop`, ...).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct HookInput {
    /// The agent's session id.
    pub session_id: Option<String>,
    /// The parent session's transcript (JSONL).
    pub transcript_path: Option<String>,
    /// The session's working directory.
    pub cwd: Option<String>,
    /// `SessionStart`, `PreToolUse`, `PostToolUse`, `Stop`, `SubagentStop`, ...
    pub hook_event_name: Option<String>,
    /// `Stop`/`SubagentStop`: a stop hook is already running.
    pub stop_hook_active: Option<bool>,
    /// `SubagentStop`: the sub-agent's id.
    pub agent_id: Option<String>,
    /// `SubagentStop`: the sub-agent's type.
    pub agent_type: Option<String>,
    /// `SubagentStop`: the sub-agent's own transcript.
    pub agent_transcript_path: Option<String>,
    /// `Stop`/`SubagentStop`: the final assistant message.
    pub last_assistant_message: Option<String>,
    /// `SessionStart`: `startup`, `resume`, `clear` or `compact`.
    pub source: Option<String>,
    /// `PreToolUse`/`PostToolUse`: the tool.
    pub tool_name: Option<String>,
    /// `PreToolUse`/`PostToolUse`: the tool's input.
    pub tool_input: Option<serde_json::Value>,
    /// Everything else, kept for logs.
    #[serde(flatten)]
    pub other: BTreeMap<String, serde_json::Value>,
}

/// Codex `notify`: the one argument Codex passes to the notify program.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, rename_all = "kebab-case")]
pub struct CodexNotify {
    /// `agent-turn-complete`.
    #[serde(rename = "type")]
    pub kind: Option<String>,
    /// The thread (session) id; names the rollout file.
    pub thread_id: Option<String>,
    /// The turn id.
    pub turn_id: Option<String>,
    /// The working directory.
    pub cwd: Option<String>,
    /// The client, when given.
    pub client: Option<String>,
    /// The user's messages of the turn.
    pub input_messages: Vec<String>,
    /// The turn's last assistant message.
    pub last_assistant_message: Option<String>,
}
