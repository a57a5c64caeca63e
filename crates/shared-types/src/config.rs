//! The whole config file.

#[cfg(feature = "schema")]
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::{
    AgentMemConfig, AgentsConfig, ClaudeCodeConfig, CodexConfig, FileListConfig,
    ProjectAgentRulesConfig,
};

/// The config file: every section is optional and every key has a default.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(deny_unknown_fields, default)]
pub struct Config {
    /// The AGENTS.md hierarchy (camelCase keys, the public v1 schema).
    pub agents: AgentsConfig,
    /// Project rule files and the rules used without one.
    pub project_agent_rules: ProjectAgentRulesConfig,
    /// The project file list in the initial context.
    pub file_list_context: FileListConfig,
    /// Capture and search of sub-agent outputs.
    pub agentmem: AgentMemConfig,
    /// How agentctx works inside Claude Code.
    pub claude_code: ClaudeCodeConfig,
    /// How agentctx works inside Codex.
    pub codex: CodexConfig,
}
