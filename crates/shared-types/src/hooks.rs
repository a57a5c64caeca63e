//! JSON that coding agents hand to hook programs, and what hooks answer.
//!
//! Inputs are lenient on purpose: agents add fields over versions, and a
//! hook must never fail because of a field it does not use. The field list
//! follows payloads recorded from Claude Code 2.1.330 and Codex 0.169.0
//! (fixtures/agents/).

use std::collections::BTreeMap;

#[cfg(feature = "schema")]
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A coding agent agentctx works with: the one that runs a hook, the one
/// `agentctx install` writes settings for. What each one implies is asked
/// of agentctx-agents, its profile; nothing else tests which agent it is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(rename_all = "kebab-case")]
pub enum Agent {
    /// Anthropic's Claude Code.
    Claude,
    /// OpenAI's Codex CLI.
    Codex,
    /// Google's Gemini CLI (`BeforeTool`/`AfterTool` command hooks).
    Gemini,
    /// GitHub Copilot CLI (PascalCase command hooks, Claude-style payloads).
    Copilot,
    /// opencode (agentctx's plugin calls the hook).
    Opencode,
    /// Qwen Code (Claude Code's hook names and shapes).
    Qwen,
    /// Cline CLI (agentctx's plugin calls the hook with Cline's hook payloads).
    Cline,
}

impl Agent {
    /// Every agent.
    pub const ALL: [Agent; 7] = [
        Self::Claude,
        Self::Codex,
        Self::Gemini,
        Self::Copilot,
        Self::Opencode,
        Self::Qwen,
        Self::Cline,
    ];

    /// `claude`, `codex`, `gemini`, `copilot`, `opencode`, `qwen` or
    /// `cline`, as the CLI spells it.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Claude => "claude",
            Self::Codex => "codex",
            Self::Gemini => "gemini",
            Self::Copilot => "copilot",
            Self::Opencode => "opencode",
            Self::Qwen => "qwen",
            Self::Cline => "cline",
        }
    }
}

crate::from_name!(Agent, "coding agent", [
    "claude" => Agent::Claude, "codex" => Agent::Codex, "gemini" => Agent::Gemini,
    "copilot" => Agent::Copilot, "opencode" => Agent::Opencode, "qwen" => Agent::Qwen,
    "cline" => Agent::Cline,
]);

impl std::fmt::Display for Agent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A hook's stdin: Claude Code and Codex hooks (`SessionStart`,
/// `SubagentStart`, `PreToolUse`, `PostToolUse`, `Stop`, `SubagentStop`, ...).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(default)]
pub struct HookInput {
    /// The agent's session id (a sub-agent's hooks carry its parent's).
    pub session_id: Option<String>,
    /// The parent session's transcript (JSONL).
    pub transcript_path: Option<String>,
    /// The session's working directory.
    pub cwd: Option<String>,
    /// `SessionStart`, `PreToolUse`, `PostToolUse`, `Stop`, `SubagentStop`, ...
    pub hook_event_name: Option<String>,
    /// `Stop`/`SubagentStop`: a stop hook is already running.
    pub stop_hook_active: Option<bool>,
    /// Set when a sub-agent runs the hook: the sub-agent's id.
    pub agent_id: Option<String>,
    /// Set with `agent_id`: the sub-agent's type (empty for the agent's
    /// internal helpers such as the `/compact` summary).
    pub agent_type: Option<String>,
    /// `SubagentStop`: the sub-agent's own transcript.
    pub agent_transcript_path: Option<String>,
    /// `Stop`/`SubagentStop`: the final assistant message.
    pub last_assistant_message: Option<String>,
    /// `SessionStart`: `startup`, `resume`, `clear`, `compact` (Codex: `fork`).
    pub source: Option<String>,
    /// `PreToolUse`/`PostToolUse`: the tool.
    pub tool_name: Option<String>,
    /// `PreToolUse`/`PostToolUse`: the tool's input.
    pub tool_input: Option<serde_json::Value>,
    /// `PostToolUse`: the tool's result.
    pub tool_response: Option<serde_json::Value>,
    /// Tool events: the call's id.
    pub tool_use_id: Option<String>,
    /// Codex: the turn's id.
    pub turn_id: Option<String>,
    /// Claude Code `SubagentStop`: the session's background tasks.
    pub background_tasks: Vec<BackgroundTask>,
    /// Everything else, kept for logs.
    #[serde(flatten)]
    pub other: BTreeMap<String, serde_json::Value>,
}

/// One entry of Claude Code's `background_tasks`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(default)]
pub struct BackgroundTask {
    /// The task's id (a sub-agent's `agent_id`).
    pub id: Option<String>,
    /// `subagent`, ...
    #[serde(rename = "type")]
    pub kind: Option<String>,
    /// `running`, `completed`, ...
    pub status: Option<String>,
    /// The `description` the task was started with.
    pub description: Option<String>,
    /// The sub-agent's type.
    pub agent_type: Option<String>,
}

/// What a hook prints on stdout for the agent: Claude Code and Codex read
/// the same `hookSpecificOutput` object.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct HookReply {
    /// The event-specific answer.
    pub hook_specific_output: HookSpecificOutput,
}

/// The event-specific part of a [`HookReply`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct HookSpecificOutput {
    /// The event this answers (the agents check it).
    pub hook_event_name: String,
    /// Text the agent adds to the model's context.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub additional_context: Option<String>,
    /// `PreToolUse`: the decision (`deny` is the only one agentctx gives).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub permission_decision: Option<PermissionDecision>,
    /// `PreToolUse`: why; the model reads it as the tool's result.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub permission_decision_reason: Option<String>,
    /// `PreToolUse`: the tool input to run instead (a shell command
    /// wrapped in agentctx's sandbox). Claude Code and Codex take it with
    /// `permissionDecision: allow`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub updated_input: Option<serde_json::Value>,
}

/// A `PreToolUse` decision.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(rename_all = "lowercase")]
pub enum PermissionDecision {
    /// The call does not run.
    Deny,
    /// The call runs (with `updatedInput`, as changed).
    Allow,
    /// The user is asked (Claude Code; with `updatedInput`, about the
    /// changed call).
    Ask,
}

impl HookReply {
    /// `additionalContext` for `event`.
    pub fn context(event: &str, text: impl Into<String>) -> Self {
        Self {
            hook_specific_output: HookSpecificOutput {
                hook_event_name: event.to_owned(),
                additional_context: Some(text.into()),
                permission_decision: None,
                permission_decision_reason: None,
                updated_input: None,
            },
        }
    }

    /// A `PreToolUse` denial with its reason.
    pub fn deny(reason: impl Into<String>) -> Self {
        Self {
            hook_specific_output: HookSpecificOutput {
                hook_event_name: "PreToolUse".to_owned(),
                additional_context: None,
                permission_decision: Some(PermissionDecision::Deny),
                permission_decision_reason: Some(reason.into()),
                updated_input: None,
            },
        }
    }

    /// A `PreToolUse` answer that asks the user, with the reason.
    pub fn ask(reason: impl Into<String>) -> Self {
        let mut reply = Self::deny(reason);
        reply.hook_specific_output.permission_decision = Some(PermissionDecision::Ask);
        reply
    }

    /// A `PreToolUse` answer that runs the call with `input` instead,
    /// allowed (`Allow`) or asked about (`Ask`).
    pub fn rewrite(input: serde_json::Value, decision: PermissionDecision) -> Self {
        Self {
            hook_specific_output: HookSpecificOutput {
                hook_event_name: "PreToolUse".to_owned(),
                additional_context: None,
                permission_decision: Some(decision),
                permission_decision_reason: None,
                updated_input: Some(input),
            },
        }
    }
}

/// Codex `notify`: the one argument Codex passes to the notify program.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(default, rename_all = "kebab-case")]
pub struct CodexNotify {
    /// `agent-turn-complete`.
    #[serde(rename = "type")]
    pub kind: Option<String>,
    /// The thread (session) id; names the rollout file. A sub-agent's
    /// thread id is its `agent_id`.
    pub thread_id: Option<String>,
    /// The turn id.
    pub turn_id: Option<String>,
    /// The working directory.
    pub cwd: Option<String>,
    /// The client, when given (absent on sub-agent turns).
    pub client: Option<String>,
    /// The user's messages of the turn.
    pub input_messages: Vec<String>,
    /// The turn's last assistant message.
    pub last_assistant_message: Option<String>,
}
