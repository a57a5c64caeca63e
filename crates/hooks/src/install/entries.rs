//! agentctx's entries in a hooks object, as Claude Code's `settings.json`
//! and Codex's `hooks.json` both hold them:
//! `{"hooks": {"Event": [{"matcher": "*", "hooks": [{"type": "command", "command": "..."}]}]}}`.

use serde_json::{Map, Value, json};

use super::{SettingsError, hook_command, is_agentctx_command};
use agentctx_types::HookAgent;

/// The events agentctx handles, and whether each takes a tool matcher.
pub(super) const EVENTS: [(&str, bool); 7] = [
    ("SessionStart", false),
    ("UserPromptSubmit", false),
    ("SubagentStart", false),
    ("PreToolUse", true),
    ("PostToolUse", true),
    ("SubagentStop", false),
    ("Stop", false),
];

/// Adds (or updates in place) one agentctx entry per event; extra agentctx
/// entries of an event (from earlier installs) are dropped, everything else
/// stays where it was.
pub(super) fn add_hooks(
    object: &mut Map<String, Value>,
    program: &str,
    agent: HookAgent,
    skip: &[&str],
) -> Result<(), SettingsError> {
    let hooks = object
        .entry("hooks")
        .or_insert_with(|| Value::Object(Map::new()))
        .as_object_mut()
        .ok_or_else(|| SettingsError::shape("hooks", "an object"))?;
    for (event, tool_event) in EVENTS {
        if skip.contains(&event) {
            continue;
        }
        let command = hook_command(program, agent, event);
        let list = hooks
            .entry(event)
            .or_insert_with(|| Value::Array(Vec::new()))
            .as_array_mut()
            .ok_or_else(|| SettingsError::shape(format!("hooks.{event}"), "a list"))?;
        let mut present = false;
        for entry in list.iter_mut() {
            if let Some(inner) = entry.get_mut("hooks").and_then(Value::as_array_mut) {
                inner.retain_mut(|hook| {
                    let ours = hook
                        .get("command")
                        .and_then(Value::as_str)
                        .is_some_and(is_agentctx_command);
                    if !ours {
                        return true;
                    }
                    if present {
                        return false;
                    }
                    hook["command"] = Value::String(command.clone());
                    if let (Some(timeout), Some(hook)) = (timeout_of(agent), hook.as_object_mut()) {
                        hook.insert("timeout".into(), json!(timeout));
                    }
                    present = true;
                    true
                });
            }
        }
        list.retain(|entry| {
            entry
                .get("hooks")
                .and_then(Value::as_array)
                .is_none_or(|h| !h.is_empty())
        });
        if !present {
            let mut hook = json!({"type": "command", "command": command});
            if let Some(timeout) = timeout_of(agent) {
                hook["timeout"] = json!(timeout);
            }
            list.push(if tool_event {
                json!({"matcher": "*", "hooks": [hook]})
            } else {
                json!({"hooks": [hook]})
            });
        }
    }
    Ok(())
}

/// The hook timeout install sets, in seconds: Claude Code's (the hook
/// answers within 20 s by itself; a timeout would let the call run).
/// Codex keeps its default (600 s): its trust hash covers the entry, so a
/// timeout of ours would change what the user trusted.
fn timeout_of(agent: HookAgent) -> Option<u64> {
    match agent {
        HookAgent::Claude => Some(30),
        HookAgent::Codex => None,
    }
}

/// Removes every agentctx entry, from every event; an event (and `hooks`)
/// left empty by that is removed too.
pub(super) fn remove_hooks(object: &mut Map<String, Value>) {
    let Some(hooks) = object.get_mut("hooks").and_then(Value::as_object_mut) else {
        return;
    };
    let events: Vec<String> = hooks.keys().cloned().collect();
    for event in events {
        let Some(list) = hooks.get_mut(&event).and_then(Value::as_array_mut) else {
            continue;
        };
        let mut touched = false;
        for entry in list.iter_mut() {
            if let Some(inner) = entry.get_mut("hooks").and_then(Value::as_array_mut) {
                let n = inner.len();
                inner.retain(|h| {
                    !h.get("command")
                        .and_then(Value::as_str)
                        .is_some_and(is_agentctx_command)
                });
                touched |= inner.len() != n;
            }
        }
        if touched {
            list.retain(|entry| {
                entry
                    .get("hooks")
                    .and_then(Value::as_array)
                    .is_none_or(|h| !h.is_empty())
            });
            if list.is_empty() {
                hooks.remove(&event);
            }
        }
    }
    if hooks.is_empty() {
        object.remove("hooks");
    }
}

/// The text to write: the JSON re-serialized, or the text as it was when
/// a removal changed nothing (a hand-formatted file stays as written).
pub(super) fn serialize(
    text: Option<&str>,
    root: &Value,
    adding: bool,
) -> Result<String, SettingsError> {
    if !adding
        && text
            .and_then(|t| serde_json::from_str::<Value>(t).ok())
            .as_ref()
            == Some(root)
    {
        return Ok(text.unwrap_or_default().to_owned());
    }
    Ok(serde_json::to_string_pretty(root).map_err(SettingsError::Json)? + "\n")
}

/// Parses a settings text for editing: `None` when there is nothing to
/// remove from (no file, or an empty one).
pub(super) fn parse(text: Option<&str>, adding: bool) -> Result<Option<Value>, SettingsError> {
    match text {
        Some(t) if !t.trim().is_empty() => serde_json::from_str(t)
            .map(Some)
            .map_err(SettingsError::Json),
        _ if !adding => Ok(None),
        _ => Ok(Some(Value::Object(Map::new()))),
    }
}
