//! Qwen Code's `settings.json` (`~/.qwen/`, or a project's `.qwen/`): hooks
//! in Claude Code's shape and names. No SubagentStart: its context did not
//! reach the sub-agent (measured with 0.15.10).

use super::entries::{EntryShape, add_entries, parse, remove_hooks, serialize};
use super::{Parts, SettingsError, hook_command};
use agentctx_types::HookAgent;

/// The events agentctx handles, and whether each takes a tool matcher.
const EVENTS: [(&str, bool); 6] = [
    ("SessionStart", false),
    ("UserPromptSubmit", false),
    ("PreToolUse", true),
    ("PostToolUse", true),
    ("SubagentStop", false),
    ("Stop", false),
];

/// Qwen Code's default timeout is kept (its unit is not documented).
const SHAPE: EntryShape = EntryShape {
    command_key: "command",
    timeout: None,
    grouped: true,
};

/// Adds (or removes) agentctx's hooks in a Qwen Code settings text.
pub(super) fn edit_qwen_settings(
    text: Option<&str>,
    program: &str,
    parts: Parts,
    adding: bool,
) -> Result<String, SettingsError> {
    let Some(mut root) = parse(text, adding)? else {
        return Ok(text.unwrap_or_default().to_owned());
    };
    let Some(object) = root.as_object_mut() else {
        return Err(SettingsError::NotAnObject);
    };
    if parts.hooks {
        if adding {
            add_entries(object, &SHAPE, &EVENTS, |event| {
                hook_command(program, HookAgent::Qwen, event)
            })?;
        } else {
            remove_hooks(object);
        }
    }
    serialize(text, &root, adding)
}
