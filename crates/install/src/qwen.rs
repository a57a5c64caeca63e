//! Qwen Code's `settings.json` (`~/.qwen/`, or a project's `.qwen/`): hooks
//! in Claude Code's shape and names. No SubagentStart: its context did not
//! reach the sub-agent (measured with 0.15.10).

use super::entries::{EntryShape, HookSet, edit_object};
use super::{Parts, SettingsError};
use agentctx_types::Agent;

/// The events agentctx handles, in Claude Code's shape; Qwen Code's
/// default timeout is kept (its unit is not documented).
const HOOKS: HookSet = HookSet {
    agent: Agent::Qwen,
    events: &[
        ("SessionStart", false),
        ("UserPromptSubmit", false),
        ("PreToolUse", true),
        ("PostToolUse", true),
        ("SubagentStop", false),
        ("Stop", false),
    ],
    shape: EntryShape {
        command_key: "command",
        timeout: None,
        grouped: true,
    },
};

/// Adds (or removes) agentctx's hooks in a Qwen Code settings text.
pub(super) fn edit_qwen_settings(
    text: Option<&str>,
    program: &str,
    parts: Parts,
    adding: bool,
) -> Result<String, SettingsError> {
    edit_object(text, adding, |object| match parts.hooks {
        true => HOOKS.apply(object, program, adding),
        false => Ok(()),
    })
}

/// Qwen Code's install: hooks in a project's `.qwen/settings.json`, or the
/// user's (`~/.qwen/settings.json`), which also holds its MCP servers.
pub(super) const QWEN: super::agent::SettingsInstall = super::agent::SettingsInstall {
    project: ".qwen/settings.json",
    kind: super::targets::FileKind::Settings(super::targets::SettingsFile {
        agent: Agent::Qwen,
        edit: edit_qwen_settings,
        users_own: |_, parts| parts,
    }),
    parts: super::agent::HOOKS,
    user: |env| agentctx_agents::dialect::of(Agent::Qwen).user_settings(env),
    advice,
};

fn advice(request: &super::Request) -> String {
    let scope = request.scope;
    format!(
        "Qwen Code runs these hooks at its next start.{}{}",
        if scope == super::Scope::User {
            ""
        } else {
            " A project's .qwen/settings.json is read in sessions started at the project root; --user works everywhere."
        },
        super::setup::mcp_note(
            request,
            " Its MCP server (tools mcp__agentctx__*) is in the user settings; Qwen Code does not show the model the server's instructions."
        )
    )
}
