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
use agentctx_types::HookAgent;

/// The events agentctx handles (none takes a matcher), each list holding
/// the hooks themselves.
const HOOKS: HookSet = HookSet {
    agent: HookAgent::Copilot,
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
