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

use super::entries::{EntryShape, add_entries, parse, remove_hooks, serialize};
use super::{Parts, SettingsError, hook_command};
use agentctx_types::HookAgent;

/// The events agentctx handles (none takes a matcher).
const EVENTS: [(&str, bool); 5] = [
    ("sessionStart", false),
    ("subagentStart", false),
    ("PreToolUse", false),
    ("PostToolUse", false),
    ("SubagentStop", false),
];

const SHAPE: EntryShape = EntryShape {
    command_key: "bash",
    timeout: Some(("timeoutSec", 30)),
    grouped: false,
};

/// Adds (or removes) agentctx's hooks in a Copilot CLI settings or hooks
/// text; `hooks_file`: a `.github/hooks/*.json` file, which gets its
/// `version` and is removed whole when only that is left.
pub(super) fn edit_copilot_hooks(
    text: Option<&str>,
    program: &str,
    parts: Parts,
    adding: bool,
    hooks_file: bool,
) -> Result<String, SettingsError> {
    let Some(mut root) = parse(text, adding)? else {
        return Ok(text.unwrap_or_default().to_owned());
    };
    let Some(object) = root.as_object_mut() else {
        return Err(SettingsError::NotAnObject);
    };
    if parts.hooks {
        if adding {
            if hooks_file && !object.contains_key("version") {
                object.insert("version".into(), json!(1));
            }
            add_entries(object, &SHAPE, &EVENTS, |event| {
                hook_command(program, HookAgent::Copilot, event)
            })?;
        } else {
            remove_hooks(object);
            if hooks_file && object.len() == 1 && object.get("version") == Some(&json!(1)) {
                object.remove("version");
            }
        }
    }
    if !adding && hooks_file && object.is_empty() {
        // The file was agentctx's alone.
        return Ok(String::new());
    }
    serialize(text, &root, adding)
}
