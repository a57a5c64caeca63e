//! How agentctx fits into each coding agent: the `claude_code` and `codex`
//! config sections.

#[cfg(feature = "schema")]
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Who gives the model the bodies of AGENTS.md files.
///
/// Claude Code (2.1.x, its built-in `agents-md` plugin) and Codex load
/// AGENTS.md themselves; agentctx must not give the same bodies again. See
/// docs/integrations/ for what each agent does, measured per version.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum AgentsMdBodies {
    /// Work out, per session, whether the agent's own loader is on (its
    /// settings, a CLAUDE.md that makes Claude Code skip AGENTS.md, its
    /// environment) and add only what it lacks.
    #[default]
    Auto,
    /// The agent's loader gives the bodies: agentctx sends no bodies and
    /// reports only what the loader misses (changed files, files reached by
    /// tools the loader does not watch).
    Builtin,
    /// agentctx gives the chain at session start and path reminders for
    /// every tool (the agent's loader is off).
    Agentctx,
}

/// The `claude_code` section.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(deny_unknown_fields, default)]
pub struct ClaudeCodeConfig {
    /// Who gives the model the bodies of AGENTS.md files.
    pub agents_md: AgentsMdBodies,
}

/// The `codex` section.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(deny_unknown_fields, default)]
pub struct CodexConfig {
    /// Who gives the model the bodies of AGENTS.md files.
    pub agents_md: AgentsMdBodies,
}
