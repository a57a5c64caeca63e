//! Gemini CLI's `settings.json`: command hooks, and `context.fileName`
//! naming AGENTS.md so that Gemini CLI loads the chain and nested files
//! itself (by default it reads only GEMINI.md).
//!
//! Measured with 0.61.0: hooks run from `~/.gemini/settings.json` and from
//! `<cwd>/.gemini/settings.json`, but not from the git root's when a
//! session starts in a subdirectory; a project's new hooks are trusted
//! without a question in a trusted folder.

use serde_json::{Map, Value, json};

use super::entries::{EntryShape, HookSet, edit_object};
use super::{Parts, SettingsError};
use agentctx_types::Agent;

/// The events agentctx handles; Gemini CLI's timeout is in milliseconds
/// (the hook answers within 20 s itself).
const HOOKS: HookSet = HookSet {
    agent: Agent::Gemini,
    events: &[
        ("SessionStart", false),
        ("BeforeAgent", false),
        ("BeforeTool", true),
        ("AfterTool", true),
        ("AfterAgent", false),
    ],
    shape: EntryShape {
        command_key: "command",
        timeout: Some(("timeout", 30_000)),
        grouped: true,
    },
};

/// The names install puts in `context.fileName` when it is not set:
/// AGENTS.md, and GEMINI.md, which Gemini CLI reads by default.
const FILE_NAMES: [&str; 2] = ["AGENTS.md", "GEMINI.md"];

/// Adds (or removes) `parts` in a Gemini CLI settings text.
pub(super) fn edit_gemini_settings(
    text: Option<&str>,
    program: &str,
    parts: Parts,
    adding: bool,
) -> Result<String, SettingsError> {
    edit_object(text, adding, |object| {
        if parts.hooks {
            HOOKS.apply(object, program, adding)?;
        }
        if parts.context_file_name {
            if adding {
                add_agents_md(object)?;
            } else {
                remove_agents_md(object);
            }
        }
        Ok(())
    })
}

/// Whether a settings text's `context.fileName` names AGENTS.md already.
pub(super) fn names_agents_md(text: Option<&str>) -> bool {
    let Some(value) = text.and_then(|t| serde_json::from_str::<Value>(t).ok()) else {
        return false;
    };
    match value.pointer("/context/fileName") {
        Some(Value::String(name)) => name == "AGENTS.md",
        Some(Value::Array(names)) => names.iter().any(|n| n == "AGENTS.md"),
        _ => false,
    }
}

/// `context.fileName` names AGENTS.md: set to [`FILE_NAMES`] when absent,
/// AGENTS.md added first when it names others.
fn add_agents_md(object: &mut Map<String, Value>) -> Result<(), SettingsError> {
    let context = object
        .entry("context")
        .or_insert_with(|| Value::Object(Map::new()))
        .as_object_mut()
        .ok_or_else(|| SettingsError::shape("context", "an object"))?;
    match context.get_mut("fileName") {
        None => {
            context.insert("fileName".into(), json!(FILE_NAMES));
        }
        Some(Value::String(name)) if name != "AGENTS.md" => {
            let name = name.clone();
            context.insert("fileName".into(), json!(["AGENTS.md", name]));
        }
        Some(Value::Array(names)) if !names.iter().any(|n| n == "AGENTS.md") => {
            names.insert(0, json!("AGENTS.md"));
        }
        Some(Value::String(_) | Value::Array(_)) => {}
        Some(_) => return Err(SettingsError::shape("context.fileName", "a name or a list")),
    }
    Ok(())
}

/// Takes out what [`add_agents_md`] added (the whole key when it holds
/// [`FILE_NAMES`] as install wrote them).
fn remove_agents_md(object: &mut Map<String, Value>) {
    let Some(context) = object.get_mut("context").and_then(Value::as_object_mut) else {
        return;
    };
    match context.get_mut("fileName") {
        Some(value) if *value == json!(FILE_NAMES) => {
            context.remove("fileName");
        }
        Some(Value::Array(names)) => {
            if names.first().is_some_and(|n| n == "AGENTS.md") {
                names.remove(0);
            }
            if names.len() == 1 {
                let only = names.remove(0);
                context.insert("fileName".into(), only);
            }
        }
        _ => {}
    }
    if context.is_empty() {
        object.remove("context");
    }
}

/// Gemini CLI's install: hooks and `context.fileName` in a project's
/// `.gemini/settings.json`, or the user's (`$GEMINI_CLI_HOME`, else the
/// home), which also holds its MCP servers.
pub(super) const GEMINI: super::agent::SettingsInstall = super::agent::SettingsInstall {
    project: ".gemini/settings.json",
    kind: super::targets::FileKind::Settings(super::targets::SettingsFile {
        agent: Agent::Gemini,
        edit: edit_gemini_settings,
        // A `context.fileName` that already names AGENTS.md is the user's.
        users_own: |before, parts| super::Parts {
            context_file_name: parts.context_file_name && !names_agents_md(before),
            ..parts
        },
    }),
    parts: super::Parts {
        context_file_name: true,
        ..super::agent::HOOKS
    },
    user: |env| agentctx_agents::dialect::of(Agent::Gemini).user_settings(env),
    advice,
};

fn advice(request: &super::Request) -> String {
    let scope = request.scope;
    format!(
        "Gemini CLI runs these hooks in trusted folders (it asks at the first start in a folder; headless runs need GEMINI_CLI_TRUST_WORKSPACE=true or --skip-trust). context.fileName now names AGENTS.md, so Gemini CLI loads the AGENTS.md chain and nested files itself.{}{}",
        if scope == super::Scope::User {
            ""
        } else {
            " Gemini CLI reads a project's .gemini/settings.json only from the folder a session starts in (not the git root's from a subdirectory): this install works in sessions started at the project root; --user works everywhere."
        },
        super::setup::mcp_note(
            request,
            " Its MCP server (tools mcp_agentctx_*) is in the user settings."
        )
    )
}
