//! Qwen Code's `settings.json` (`~/.qwen/`, or a project's `.qwen/`): hooks
//! in Claude Code's shape and names. No SubagentStart: its context did not
//! reach the sub-agent (measured with 0.15.10).

use super::entries::{EntryShape, HookSet, edit_object};
use super::{Parts, SettingsError};
use agentctx_types::HookAgent;

/// The events agentctx handles, in Claude Code's shape; Qwen Code's
/// default timeout is kept (its unit is not documented).
const HOOKS: HookSet = HookSet {
    agent: HookAgent::Qwen,
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
