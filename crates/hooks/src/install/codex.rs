//! Codex's `hooks.json` (and, for earlier installs, `config.toml`).

use serde_json::{Map, Value, json};

use super::{hook_command, is_agentctx_command};
use agentctx_types::HookAgent;

/// The events agentctx handles in Codex, and whether each takes a matcher.
const EVENTS: [(&str, bool); 6] = [
    ("SessionStart", false),
    ("SubagentStart", false),
    ("PreToolUse", true),
    ("PostToolUse", true),
    ("SubagentStop", false),
    ("Stop", false),
];

/// Adds (or removes) agentctx's entries in a Codex `hooks.json` text
/// (`{"hooks": {"Event": [{"matcher": "...", "hooks": [...]}]}}`).
pub fn edit_codex_hooks(text: Option<&str>, program: &str, adding: bool) -> Result<String, String> {
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
    let hooks = object
        .entry("hooks")
        .or_insert_with(|| Value::Object(Map::new()))
        .as_object_mut()
        .ok_or("`hooks` is not an object")?;
    for (event, tool_event) in EVENTS {
        let command = hook_command(program, HookAgent::Codex, event);
        let list = hooks
            .entry(event)
            .or_insert_with(|| Value::Array(Vec::new()))
            .as_array_mut()
            .ok_or_else(|| format!("`hooks.{event}` is not a list"))?;
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
                    if adding && !present {
                        hook["command"] = Value::String(command.clone());
                        present = true;
                        return true;
                    }
                    false
                });
            }
        }
        list.retain(|entry| {
            entry
                .get("hooks")
                .and_then(Value::as_array)
                .is_none_or(|h| !h.is_empty())
        });
        if adding && !present {
            let hook = json!({"type": "command", "command": command});
            list.push(if tool_event {
                json!({"matcher": "*", "hooks": [hook]})
            } else {
                json!({"hooks": [hook]})
            });
        }
        if list.is_empty() {
            hooks.remove(event);
        }
    }
    if hooks.is_empty() {
        object.remove("hooks");
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

/// Removes what agentctx versions before 0.2 added to a Codex
/// `config.toml`: values marked `# added by agentctx`.
pub fn edit_codex_toml(text: &str) -> Result<String, String> {
    const MARK: &str = "added by agentctx";
    let mut doc: toml_edit::DocumentMut =
        text.parse().map_err(|e| format!("not valid TOML ({e})"))?;
    let marked = |item: Option<&toml_edit::Item>| {
        item.and_then(toml_edit::Item::as_value)
            .and_then(|v| v.decor().suffix())
            .and_then(|s| s.as_str())
            .is_some_and(|s| s.contains(MARK))
    };
    if marked(doc.get("notify")) {
        doc.remove("notify");
    }
    let mut empty = false;
    if let Some(features) = doc
        .get_mut("features")
        .and_then(toml_edit::Item::as_table_like_mut)
    {
        if marked(features.get("codex_hooks")) {
            features.remove("codex_hooks");
        }
        empty = features.is_empty();
    }
    if empty {
        doc.remove("features");
    }
    Ok(doc.to_string())
}
