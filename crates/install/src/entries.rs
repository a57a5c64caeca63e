//! agentctx's entries in a hooks object, as Claude Code's `settings.json`
//! and Codex's `hooks.json` both hold them:
//! `{"hooks": {"Event": [{"matcher": "*", "hooks": [{"type": "command", "command": "..."}]}]}}`.

use serde_json::{Map, Value, json};

use super::{SettingsError, hook_command, is_agentctx_command};
use agentctx_types::Agent;

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

/// How an agent writes a hook entry.
pub(super) struct EntryShape {
    /// The key of the command line: `command`, or Copilot CLI's `bash`.
    pub command_key: &'static str,
    /// The timeout key and value install sets, in the agent's unit.
    pub timeout: Option<(&'static str, u64)>,
    /// Entries are `{"matcher", "hooks": [hook]}` (Claude Code's shape);
    /// otherwise each event's list holds the hooks themselves (Copilot CLI).
    pub grouped: bool,
}

/// One agent's hook entries: which events, in which shape, for which
/// agent's dialect.
pub(super) struct HookSet {
    /// The dialect the command names (`--agent`).
    pub agent: Agent,
    /// The events, and whether each takes a tool matcher.
    pub events: &'static [(&'static str, bool)],
    /// How the agent writes an entry.
    pub shape: EntryShape,
}

impl HookSet {
    /// Adds (`adding`) or removes agentctx's entries in a settings object.
    pub(super) fn apply(
        &self,
        object: &mut Map<String, Value>,
        program: &str,
        adding: bool,
    ) -> Result<(), SettingsError> {
        if adding {
            add_entries(object, &self.shape, self.events, |event| {
                hook_command(program, self.agent, event)
            })
        } else {
            remove_hooks(object);
            Ok(())
        }
    }
}

/// A JSON settings text with its top-level object changed by `change`:
/// nothing to remove from is left as it is; the text is written back as
/// [`serialize`] does.
pub(super) fn edit_object(
    text: Option<&str>,
    adding: bool,
    change: impl FnOnce(&mut Map<String, Value>) -> Result<(), SettingsError>,
) -> Result<String, SettingsError> {
    let Some(mut root) = parse(text, adding)? else {
        return Ok(text.unwrap_or_default().to_owned());
    };
    let object = root.as_object_mut().ok_or(SettingsError::NotAnObject)?;
    change(object)?;
    serialize(text, &root, adding)
}

/// Adds (or updates in place) one agentctx entry per event;
/// extra agentctx entries of an event (from earlier installs) are dropped,
/// everything else stays where it was.
pub(super) fn add_hooks(
    object: &mut Map<String, Value>,
    program: &str,
    agent: Agent,
    timeout: Option<u64>,
    skip: &[&str],
) -> Result<(), SettingsError> {
    let events: Vec<(&str, bool)> = EVENTS
        .iter()
        .copied()
        .filter(|(event, _)| !skip.contains(event))
        .collect();
    let shape = EntryShape {
        command_key: "command",
        timeout: timeout.map(|t| ("timeout", t)),
        grouped: true,
    };
    add_entries(object, &shape, &events, |event| {
        hook_command(program, agent, event)
    })
}

/// Adds (or updates in place) one agentctx entry for each of `events`, in
/// `shape`, with the command `command` gives for the event.
pub(super) fn add_entries(
    object: &mut Map<String, Value>,
    shape: &EntryShape,
    events: &[(&str, bool)],
    command: impl Fn(&str) -> String,
) -> Result<(), SettingsError> {
    let hooks = object
        .entry("hooks")
        .or_insert_with(|| Value::Object(Map::new()))
        .as_object_mut()
        .ok_or_else(|| SettingsError::shape("hooks", "an object"))?;
    let key = shape.command_key;
    let ours = |hook: &Value| {
        ["command", "bash"].iter().any(|k| {
            hook.get(*k)
                .and_then(Value::as_str)
                .is_some_and(is_agentctx_command)
        })
    };
    for &(event, tool_event) in events {
        let command = command(event);
        let list = hooks
            .entry(event)
            .or_insert_with(|| Value::Array(Vec::new()))
            .as_array_mut()
            .ok_or_else(|| SettingsError::shape(format!("hooks.{event}"), "a list"))?;
        let mut present = false;
        let mut update = |hook: &mut Value| -> bool {
            if !ours(hook) {
                return true;
            }
            if present {
                return false;
            }
            hook[key] = Value::String(command.clone());
            if let (Some((name, value)), Some(hook)) = (shape.timeout, hook.as_object_mut()) {
                hook.insert(name.into(), json!(value));
            }
            present = true;
            true
        };
        if shape.grouped {
            for entry in list.iter_mut() {
                // Only a group every call reaches keeps agentctx's entry: one
                // left under a narrower matcher (`run_shell_command`) would
                // see only those calls.
                let every_call = match entry.get("matcher") {
                    None => true,
                    Some(Value::String(matcher)) => matcher.is_empty() || matcher == "*",
                    Some(_) => false,
                };
                if let Some(inner) = entry.get_mut("hooks").and_then(Value::as_array_mut) {
                    if every_call {
                        inner.retain_mut(&mut update);
                    } else {
                        inner.retain(|hook| !ours(hook));
                    }
                }
            }
            list.retain(|entry| {
                entry
                    .get("hooks")
                    .and_then(Value::as_array)
                    .is_none_or(|h| !h.is_empty())
            });
        } else {
            list.retain_mut(&mut update);
        }
        if !present {
            let mut hook = json!({"type": "command"});
            hook[key] = Value::String(command.clone());
            if let Some((name, value)) = shape.timeout {
                hook[name] = json!(value);
            }
            list.push(match (shape.grouped, tool_event) {
                (false, _) => hook,
                (true, true) => json!({"matcher": "*", "hooks": [hook]}),
                (true, false) => json!({"hooks": [hook]}),
            });
        }
    }
    Ok(())
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
        let ours = |hook: &Value| {
            ["command", "bash"].iter().any(|k| {
                hook.get(*k)
                    .and_then(Value::as_str)
                    .is_some_and(is_agentctx_command)
            })
        };
        let mut touched = false;
        for entry in list.iter_mut() {
            if let Some(inner) = entry.get_mut("hooks").and_then(Value::as_array_mut) {
                let n = inner.len();
                inner.retain(|h| !ours(h));
                touched |= inner.len() != n;
            }
        }
        // Copilot CLI's lists hold the hooks themselves.
        let n = list.len();
        list.retain(|h| !ours(h));
        touched |= list.len() != n;
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
