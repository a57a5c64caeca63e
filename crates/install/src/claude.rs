//! Claude Code's `settings.json`: hook entries, and the built-in AGENTS.md
//! loader's option.

use serde_json::{Map, Value, json};

use super::agent::{AgentInstall, HOOKS as HOOK_PARTS, MCP as MCP_PARTS};
use super::targets::{FileKind, Target};
use super::{InstallError, Places, Request, Scope};
use super::{Parts, SettingsError};
use agentctx_types::Agent;

/// The hook timeout install sets, in seconds: the hook answers within
/// 20 s by itself, and a timeout would let the call run.
const TIMEOUT: Option<u64> = Some(30);

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
                super::entries::add_hooks(object, program, Agent::Claude, TIMEOUT, skip)?;
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
        .entry(agentctx_agents::CLAUDE_PLUGIN)
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
    let plugin = agentctx_agents::CLAUDE_PLUGIN;
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

/// Claude Code's install: `settings.local.json` at the root for a project
/// (it reads the root's in every subdirectory since 2.1.211),
/// `settings.json` for a shared one, the user settings otherwise; the MCP
/// server in the project's `.mcp.json`; the loader option in the user
/// settings (the only place it reads plugin options).
pub(super) struct Claude;

impl AgentInstall for Claude {
    fn targets(
        &self,
        request: &Request,
        places: &Places,
        adding: bool,
        out: &mut Vec<Target>,
    ) -> Result<(), InstallError> {
        let user = || {
            places.claude_user_settings.clone().ok_or_else(|| {
                InstallError::Unplaced("no $HOME: Claude Code's user settings are unknown".into())
            })
        };
        let settings = match request.scope {
            Scope::Project => places.root.join(".claude/settings.local.json"),
            Scope::Shared => places.root.join(".claude/settings.json"),
            Scope::User => user()?,
        };
        out.push(Target {
            path: settings,
            kind: FileKind::ClaudeSettings,
            parts: HOOK_PARTS,
        });
        // The MCP server: the project's `.mcp.json` (Claude Code asks once
        // before it starts a project's server).
        if request.mcp || !adding {
            out.push(Target {
                path: places.root.join(".mcp.json"),
                kind: FileKind::McpJson,
                parts: MCP_PARTS,
            });
        }
        let undo_option = !adding && places.claude_user_settings.is_some();
        if request.agents_md_plugin_off || undo_option {
            out.push(Target {
                path: user()?,
                kind: FileKind::ClaudeSettings,
                parts: Parts {
                    agents_md_plugin_off: true,
                    ..Parts::default()
                },
            });
        }
        Ok(())
    }

    fn advice(&self, request: &Request) -> Option<String> {
        advice(request)
    }

    fn version_matters(&self) -> bool {
        true
    }
}

/// The first Claude Code release that reads the project root's
/// `.claude/settings.local.json` in a session started in a subdirectory
/// (measured: 2.1.210 and earlier read only the starting directory's
/// `.claude/settings.json` and `.claude/settings.local.json`, and the
/// user's settings).
pub const CLAUDE_ROOT_SETTINGS_FROM_SUBDIRECTORIES: (u32, u32, u32) = (2, 1, 211);

/// Where Claude Code reads the file install wrote, by the release found.
fn advice(request: &Request) -> Option<String> {
    use super::setup::version_text;
    let since = CLAUDE_ROOT_SETTINGS_FROM_SUBDIRECTORIES;
    let reads_root_local = request.agent_version.map(|v| v >= since);
    let text = match request.scope {
        Scope::Project => match reads_root_local {
            Some(true) => "Claude Code reads this file in sessions started anywhere in the project; it is personal (keep it out of git).".to_owned(),
            Some(false) => format!(
                "Claude Code {} reads a project's settings only from the directory a session starts in (its .claude/settings.json and .claude/settings.local.json) and the user settings: this file works in sessions started at the project root. For sessions started in subdirectories, install with --user, or upgrade Claude Code to {}.{}.{} or later. It is personal (keep it out of git).",
                version_text(request.agent_version),
                since.0, since.1, since.2
            ),
            None => format!(
                "Claude Code {}.{}.{} and later read this file in sessions started anywhere in the project; earlier releases only in sessions started at the project root (`claude --version` did not answer, so install could not tell which runs here; --user works everywhere). It is personal (keep it out of git).",
                since.0, since.1, since.2
            ),
        },
        Scope::Shared => match reads_root_local {
            Some(false) => format!(
                "note: Claude Code {} reads a project's .claude/settings.json only in sessions started at the project root, and no root settings at all from a subdirectory; --user works everywhere.",
                version_text(request.agent_version)
            ),
            _ => format!(
                "note: Claude Code reads a project's .claude/settings.json only in sessions started at the project root; `agentctx install claude` (settings.local.json) works in every subdirectory with Claude Code {}.{}.{} and later.",
                since.0, since.1, since.2
            ),
        },
        Scope::User => return None,
    };
    Some(text)
}
