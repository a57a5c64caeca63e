//! GitHub Copilot CLI's hooks: `~/.copilot/settings.json` `hooks` (user),
//! or a project's `.github/hooks/agentctx.json` (`{"version": 1, "hooks":
//! ...}`, a file of agentctx's own). Each event's list holds the hooks
//! themselves (`{"type": "command", "bash", "timeoutSec"}`).
//!
//! PascalCase events get Claude-style payloads (the tool events, the
//! sub-agent's stop, the main agent's stop); the camelCase `sessionStart`
//! and `subagentStart` are the ones whose context reaches the model
//! (measured with 1.0.102: PascalCase `SubagentStart` never fired, and
//! Claude's `hookSpecificOutput` context is dropped). Copilot reads a
//! project's hooks only from the folder a session starts in, in a trusted
//! folder.

use serde_json::json;

use super::entries::{EntryShape, HookSet, edit_object};
use super::{Parts, SettingsError};
use agentctx_types::Agent;

/// The events agentctx handles (none takes a matcher), each list holding
/// the hooks themselves.
const HOOKS: HookSet = HookSet {
    agent: Agent::Copilot,
    events: &[
        ("sessionStart", false),
        ("subagentStart", false),
        ("PreToolUse", false),
        ("PostToolUse", false),
        ("SubagentStop", false),
    ],
    shape: EntryShape {
        command_key: "bash",
        timeout: Some(("timeoutSec", 30)),
        grouped: false,
    },
};

/// Adds (or removes) agentctx's hooks in a Copilot CLI settings or hooks
/// text; `hooks_file`: a `.github/hooks/*.json` file, which gets its
/// `version` and is emptied (removed) when only that is left.
pub(super) fn edit_copilot_hooks(
    text: Option<&str>,
    program: &str,
    parts: Parts,
    adding: bool,
    hooks_file: bool,
) -> Result<String, SettingsError> {
    let edited = edit_object(text, adding, |object| {
        if !parts.hooks {
            return Ok(());
        }
        if hooks_file && adding && !object.contains_key("version") {
            object.insert("version".into(), json!(1));
        }
        HOOKS.apply(object, program, adding)?;
        if hooks_file && !adding && object.len() == 1 && object.get("version") == Some(&json!(1)) {
            object.remove("version");
        }
        Ok(())
    })?;
    // The file was agentctx's alone.
    let emptied = !adding && hooks_file && edited.trim() == "{}";
    Ok(if emptied { String::new() } else { edited })
}

/// Copilot CLI's install: agentctx's own `.github/hooks/agentctx.json` in a
/// project, the hooks in its user `settings.json` otherwise; the MCP server
/// in its `mcp-config.json`.
pub(super) struct Copilot;

impl super::agent::AgentInstall for Copilot {
    fn targets(
        &self,
        request: &super::Request,
        places: &super::Places,
        adding: bool,
        out: &mut Vec<super::targets::Target>,
    ) -> Result<(), super::InstallError> {
        use super::targets::{FileKind, Target};
        let (path, kind) = match request.scope {
            super::Scope::User => (
                super::agent::user_config(request, places)?.with_file_name("settings.json"),
                FileKind::CopilotSettings,
            ),
            _ => (
                places.root.join(".github/hooks/agentctx.json"),
                FileKind::CopilotHooksFile,
            ),
        };
        out.push(Target {
            path,
            kind,
            parts: super::agent::HOOKS,
        });
        super::agent::mcp_target(request, places, adding, out)
    }

    fn mcp_config(&self, env: &agentctx_config::Environment) -> Option<std::path::PathBuf> {
        // Beside its user settings (`$COPILOT_HOME`, else `~/.copilot`).
        agentctx_agents::dialect::of(agentctx_types::Agent::Copilot)
            .user_settings(env)
            .map(|settings| settings.with_file_name("mcp-config.json"))
    }

    fn mcp_entry(&self, program: &str) -> (&'static str, serde_json::Value) {
        (
            "mcpServers",
            json!({"type": "local", "command": program, "args": ["mcp"], "tools": ["*"]}),
        )
    }

    fn advice(&self, request: &super::Request) -> Option<String> {
        let scope = request.scope;
        Some(format!(
            "Copilot CLI runs these hooks at its next start.{}{}",
            if scope == super::Scope::User {
                ""
            } else {
                " It reads .github/hooks/ only from the folder a session starts in, and only in a trusted folder: this install works in sessions started at the project root; --user works everywhere."
            },
            super::setup::mcp_note(
                request,
                " Its MCP server (tools agentctx-*) is in ~/.copilot/mcp-config.json."
            )
        ))
    }
}
