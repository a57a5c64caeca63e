//! Claude Code's `settings.json`: hook entries, and the built-in AGENTS.md
//! loader's option.

use serde_json::{Map, Value, json};

use super::{Parts, SettingsError};
use agentctx_types::HookAgent;

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
    version: Option<(u32, u32, u32)>,
) -> Result<String, SettingsError> {
    super::entries::edit_object(text, adding, |object| {
        if parts.hooks {
            if adding {
                // Claude Code before 2.0.44 does not know SubagentStart and
                // then ignores the whole hooks object (measured with 1.0.128
                // and 2.0.30): leave it out for those versions.
                // UserPromptSubmit is left out too: its context reaches the
                // model as a `system` message after the first user message,
                // as SessionStart's does (measured with 2.1.330,
                // crates/e2e/tests/position.rs), so it cannot put the file
                // list in the user message and would only cost a process per
                // prompt.
                let skip: &[&str] = if version.is_some_and(|v| v < (2, 0, 44)) {
                    &["SubagentStart", "UserPromptSubmit"]
                } else {
                    &["UserPromptSubmit"]
                };
                super::entries::add_hooks(object, program, HookAgent::Claude, skip)?;
            } else {
                super::entries::remove_hooks(object);
            }
        }
        if parts.agents_md_plugin_off {
            if adding {
                set_plugin_off(object)?;
            } else {
                unset_plugin_off(object);
            }
        }
        Ok(())
    })
}

fn set_plugin_off(object: &mut Map<String, Value>) -> Result<(), SettingsError> {
    let options = object
        .entry("pluginConfigs")
        .or_insert_with(|| json!({}))
        .as_object_mut()
        .ok_or_else(|| SettingsError::shape("pluginConfigs", "an object"))?
        .entry(crate::agents_md::CLAUDE_PLUGIN)
        .or_insert_with(|| json!({}))
        .as_object_mut()
        .ok_or_else(|| SettingsError::shape("pluginConfigs.agents-md@builtin", "an object"))?
        .entry("options")
        .or_insert_with(|| json!({}))
        .as_object_mut()
        .ok_or_else(|| {
            SettingsError::shape("pluginConfigs.agents-md@builtin.options", "an object")
        })?;
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
