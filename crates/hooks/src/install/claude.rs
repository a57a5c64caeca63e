//! Claude Code's `settings.json`: hook entries, and the built-in AGENTS.md
//! loader's option.

use serde_json::{Map, Value, json};

use super::{Parts, hook_command, is_agentctx_command};
use agentctx_types::HookAgent;

/// The events agentctx handles, and whether each takes a tool matcher.
const EVENTS: [(&str, bool); 6] = [
    ("SessionStart", false),
    ("SubagentStart", false),
    ("PreToolUse", true),
    ("PostToolUse", true),
    ("SubagentStop", false),
    ("Stop", false),
];

/// The value of `pluginConfigs["agents-md@builtin"].options.instructionFiles`
/// that switches Claude Code's AGENTS.md loading off (CLAUDE.md only).
pub const AGENTS_MD_PLUGIN_OFF: &str = "claude-md";

/// Adds (or removes) `parts` in a Claude Code settings text, keeping every
/// other key and hook where it was. An agentctx entry already there is
/// updated in place, never added twice. `Err` says why the text cannot be
/// edited safely.
pub fn edit_claude_settings(
    text: Option<&str>,
    program: &str,
    parts: Parts,
    adding: bool,
) -> Result<String, String> {
    let mut root: Value = match text {
        Some(t) if !t.trim().is_empty() => {
            serde_json::from_str(t).map_err(|e| format!("not valid JSON ({e})"))?
        }
        _ if !adding => return Ok(text.unwrap_or_default().to_owned()),
        _ => Value::Object(Map::new()),
    };
    let Some(object) = root.as_object_mut() else {
        return Err("does not hold a JSON object".into());
    };
    if parts.hooks {
        if adding {
            add_hooks(object, program)?;
        } else {
            remove_hooks(object);
        }
    }
    if parts.agents_md_plugin_off {
        if adding {
            set_plugin_off(object)?;
        } else {
            unset_plugin_off(object);
        }
    }
    // Nothing removed: the text stays as the user wrote it.
    if !adding
        && text
            .and_then(|t| serde_json::from_str::<Value>(t).ok())
            .as_ref()
            == Some(&root)
    {
        return Ok(text.unwrap_or_default().to_owned());
    }
    Ok(serde_json::to_string_pretty(&root).map_err(|e| e.to_string())? + "\n")
}

fn add_hooks(object: &mut Map<String, Value>, program: &str) -> Result<(), String> {
    let hooks = object
        .entry("hooks")
        .or_insert_with(|| Value::Object(Map::new()))
        .as_object_mut()
        .ok_or("`hooks` is not an object")?;
    for (event, tool_event) in EVENTS {
        let command = hook_command(program, HookAgent::Claude, event);
        let list = hooks
            .entry(event)
            .or_insert_with(|| Value::Array(Vec::new()))
            .as_array_mut()
            .ok_or_else(|| format!("`hooks.{event}` is not a list"))?;
        let mut present = false;
        for entry in list.iter_mut() {
            if let Some(inner) = entry.get_mut("hooks").and_then(Value::as_array_mut) {
                for hook in inner.iter_mut() {
                    let ours = hook
                        .get("command")
                        .and_then(Value::as_str)
                        .is_some_and(is_agentctx_command);
                    if ours && !present {
                        hook["command"] = Value::String(command.clone());
                        present = true;
                    }
                }
            }
        }
        if !present {
            let hook = json!({"type": "command", "command": command});
            list.push(if tool_event {
                json!({"matcher": "*", "hooks": [hook]})
            } else {
                json!({"hooks": [hook]})
            });
        }
    }
    Ok(())
}

fn remove_hooks(object: &mut Map<String, Value>) {
    let Some(hooks) = object.get_mut("hooks").and_then(Value::as_object_mut) else {
        return;
    };
    let events: Vec<String> = hooks.keys().cloned().collect();
    for event in events {
        let Some(list) = hooks.get_mut(&event).and_then(Value::as_array_mut) else {
            continue;
        };
        let before = list.len();
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
        }
        if touched && list.is_empty() && before > 0 {
            hooks.remove(&event);
        }
    }
    if hooks.is_empty() {
        object.remove("hooks");
    }
}

fn set_plugin_off(object: &mut Map<String, Value>) -> Result<(), String> {
    let options = object
        .entry("pluginConfigs")
        .or_insert_with(|| json!({}))
        .as_object_mut()
        .ok_or("`pluginConfigs` is not an object")?
        .entry(crate::agents_md::CLAUDE_PLUGIN)
        .or_insert_with(|| json!({}))
        .as_object_mut()
        .ok_or("`pluginConfigs.agents-md@builtin` is not an object")?
        .entry("options")
        .or_insert_with(|| json!({}))
        .as_object_mut()
        .ok_or("`pluginConfigs.agents-md@builtin.options` is not an object")?;
    options.insert(
        "instructionFiles".into(),
        Value::String(AGENTS_MD_PLUGIN_OFF.into()),
    );
    Ok(())
}

fn unset_plugin_off(object: &mut Map<String, Value>) {
    let plugin = crate::agents_md::CLAUDE_PLUGIN;
    let Some(configs) = object
        .get_mut("pluginConfigs")
        .and_then(Value::as_object_mut)
    else {
        return;
    };
    if let Some(entry) = configs.get_mut(plugin).and_then(Value::as_object_mut) {
        if let Some(options) = entry.get_mut("options").and_then(Value::as_object_mut) {
            if options.get("instructionFiles").and_then(Value::as_str) == Some(AGENTS_MD_PLUGIN_OFF)
            {
                options.remove("instructionFiles");
            }
            if options.is_empty() {
                entry.remove("options");
            }
        }
        if entry.is_empty() {
            configs.remove(plugin);
        }
    }
    if configs.is_empty() {
        object.remove("pluginConfigs");
    }
}
