//! AgentMem: its config section.

use std::path::PathBuf;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The `agentmem` section of the config.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
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
        }
    }
}
