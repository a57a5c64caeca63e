//! Cline CLI 3.0.65 (npm `cline`). Its hook files cannot give context
//! before the model's first turn (TaskStart's answer is dropped, and
//! UserPromptSubmit does not fire for a run's prompt) and can stop a call
//! only by ending the whole task (`cancel`), so agentctx installs a Cline
//! plugin instead (`install/cline_plugin.js`): `beforeRun`, `beforeTool`
//! and `afterTool` call `agentctx hook --agent cline` with the payload
//! Cline's own hook-file adapter builds from the same call (`hookName`,
//! `sessionContext.rootSessionId`, `agent_id`, `parent_agent_id`,
//! `tool_call`, `tool_result`), so this dialect reads the plugin's calls
//! and Cline's hook files alike. It answers in Cline's hook control shape
//! (`contextModification`, `overrideInput`, `cancel` with `errorMessage`);
//! the plugin turns a `cancel` into a skip of that call with the reason as
//! its result, and the task goes on. Measured facts and their runs:
//! docs/integrations/cline-cli.md.
//!
//! Cline's tools take many input shapes (`read_files` thirteen, through a
//! union of schemas where the first that parses wins): every path any
//! shape could name is judged, and a shape that names a path in a way not
//! known here is refused when anything is restricted.

use std::path::PathBuf;

use agentctx_config::Environment;
use agentctx_types::{HookInput, HookReply, PermissionDecision};
use serde_json::{Map, Value, json};

use crate::dialect::{Dialect, LoaderFacts, Native, rename_tool};
use crate::loader::{BuiltinLoader, LoaderDecision};

mod inputs;

/// The key under which agentctx's plugin names Cline's own working folder
/// (where `cline` was started; `read_files` reads relative paths from
/// there, not from the session's folder).
const CLI_CWD: &str = "cline_cwd";

pub(super) struct Cline;

/// Its folder (`CLINE_DIR`), then the variables that move its files out
/// of it (every `CLINE_*_DIR` and `*_PATH` of 3.0.65 that names its data,
/// settings, databases or the programs it runs).
const SETTINGS_VARS: [&str; 16] = [
    "CLINE_DIR",
    "CLINE_DATA_DIR",
    "CLINE_MCP_SETTINGS_PATH",
    "CLINE_PROVIDER_SETTINGS_PATH",
    "CLINE_GLOBAL_SETTINGS_PATH",
    "CLINE_CONNECTOR_SETTINGS_PATH",
    "CLINE_CONNECTOR_DATA_DIR",
    "CLINE_SESSION_DATA_DIR",
    "CLINE_TEAM_DATA_DIR",
    "CLINE_DB_DATA_DIR",
    "CLINE_TASKS_DB_PATH",
    "CLINE_CRON_DB_PATH",
    "CLINE_CONNECTORS_DB_PATH",
    "CLINE_JS_RUNTIME_PATH",
    "CLINE_HUB_DISCOVERY_PATH",
    "CLINE_WRAPPER_PATH",
];

/// Cline's tools by their shared names.
const TOOLS: [(&str, &str); 8] = [
    ("read_files", "Read"),
    ("editor", "Edit"),
    ("apply_patch", "apply_patch"),
    ("run_commands", "Bash"),
    ("search_codebase", "Grep"),
    ("fetch_web_content", "WebFetch"),
    // A sub-agent, and a teammate's task: both end with the answer.
    ("spawn_agent", "Agent"),
    ("team_run_task", "Agent"),
];

impl Dialect for Cline {
    fn settings_vars(&self) -> &'static [&'static str] {
        &SETTINGS_VARS
    }

    fn capture_source(&self) -> &'static str {
        "cline-plugin"
    }

    fn normalize(&self, input: &mut HookInput, _: Option<&str>) -> Native {
        let mut native = Native::default();
        read_common(input);
        let own = input.tool_name.clone();
        rename_tool(input, &TOOLS, &mut native);
        if native.tool.is_none()
            && let Some(name) = input.tool_name.clone()
            && let Some((first, others)) = crate::dialect::mcp_splits(&name, "__")
        {
            input.tool_name = Some(first);
            native.tool = Some(name);
            native.aliases = others;
        }
        let cli_cwd = input
            .other
            .remove(CLI_CWD)
            .and_then(|v| v.as_str().map(PathBuf::from));
        // Where Cline's other file tools and its shell start: the session's.
        let session = input.cwd.as_deref().map(PathBuf::from);
        let absolute = |path: &str| match &session {
            Some(dir) => agentctx_types::normalize_lexically(&dir.join(path))
                .to_string_lossy()
                .into_owned(),
            None => path.to_owned(),
        };
        let mut refuse = |why: String| native.unjudgeable = Some(why);
        match own.as_deref() {
            Some("read_files") => match input.tool_input.as_ref().map(inputs::read_paths) {
                Some(Ok(paths)) if !paths.is_empty() => {
                    match inputs::opened_files(&paths, cli_cwd.as_deref()) {
                        Ok(files) => input.tool_input = Some(files_input(&files)),
                        Err(why) => refuse(why),
                    }
                }
                _ => refuse(
                    "Cline's read_files input names its files in a shape agentctx does not know"
                        .to_owned(),
                ),
            },
            Some("run_commands") => match input.tool_input.as_ref().map(inputs::command_line) {
                Some(Ok(line)) => input.tool_input = Some(json!({"command": line})),
                Some(Err(why)) => refuse(why),
                None => {}
            },
            Some("editor") => {
                if let Some(args) = input.tool_input.as_mut().and_then(Value::as_object_mut) {
                    // Without text to replace or a line to insert at (absent
                    // or null), it writes the file whole.
                    let given = |key: &str| args.get(key).is_some_and(|v| !v.is_null());
                    if !given("old_text") && !given("insert_line") {
                        input.tool_name = Some("Write".to_owned());
                    }
                    match args.remove("path") {
                        Some(Value::String(path)) => {
                            args.insert("file_path".into(), json!(absolute(&path)));
                        }
                        Some(other) => {
                            args.insert("path".into(), other);
                        }
                        None => {}
                    }
                }
            }
            // Its patch, read as Cline's parser reads it: the files are
            // what is judged.
            Some("apply_patch") => {
                let patch = input
                    .tool_input
                    .as_ref()
                    .and_then(|i| i.get("input").or(Some(i)))
                    .and_then(Value::as_str)
                    .map(crate::patch_paths);
                match patch {
                    Some(files) => {
                        let files: Vec<String> = files.iter().map(|f| absolute(f)).collect();
                        input.tool_input = Some(files_input(&files));
                    }
                    None => refuse(
                        "Cline's apply_patch input is in a shape agentctx does not know".to_owned(),
                    ),
                }
            }
            Some("search_codebase") => {
                if let Some(Err(why)) = input.tool_input.as_ref().map(inputs::search_queries) {
                    refuse(why);
                }
            }
            Some("spawn_agent" | "team_run_task") => agent_result(input),
            _ => {}
        }
        native
    }

    fn render(&self, reply: &HookReply) -> Value {
        let out = &reply.hook_specific_output;
        let mut control = Map::new();
        let mut stop = |reason: String| {
            control.insert("cancel".into(), json!(true));
            control.insert("errorMessage".into(), json!(reason));
        };
        match (&out.permission_decision, &out.updated_input) {
            (Some(PermissionDecision::Deny), _) => {
                stop(out.permission_decision_reason.clone().unwrap_or_default());
            }
            // Cline has no question to ask through a hook or a plugin.
            (Some(PermissionDecision::Ask), _) => stop(format!(
                "{} (Cline cannot be made to ask the user: agentctx denies instead)",
                out.permission_decision_reason.as_deref().unwrap_or("agentctx would ask")
            )),
            (_, Some(changed)) => match changed.get("command").and_then(Value::as_str) {
                Some(command) => {
                    control.insert("overrideInput".into(), json!({"commands": [command]}));
                }
                None => stop(
                    "agentctx changed this call's input into a shape Cline's tool does not take: it does not run".to_owned(),
                ),
            },
            _ => {}
        }
        if let Some(text) = &out.additional_context {
            control.insert("contextModification".into(), json!(text));
        }
        Value::Object(control)
    }

    fn loader(&self, _: &LoaderFacts<'_>) -> Option<LoaderDecision> {
        Some(LoaderDecision {
            loader: BuiltinLoader {
                initial: false,
                nested_on_read: false,
                nested_tools: &[],
                nested_below_cwd_only: false,
                initial_cwd_only: true,
            },
            why: "Cline CLI puts only the cwd's AGENTS.md into its rules, never one above it or below it: agentctx gives the chain above the cwd and reports the others".to_owned(),
        })
    }

    /// It fires no prompt hook for a run's prompt; its start context is a
    /// user message after the prompt already (`<hook_context
    /// source="RunStart">`), so every part goes with the start.
    fn prompt_context_follows_message(&self) -> bool {
        false
    }

    /// Its plugin's calls carry no permission mode; headless it runs what
    /// it is auto-approved to run, and a wrapped command is shown as it
    /// is where it asks.
    fn never_asks(&self, _: Option<&str>) -> bool {
        true
    }

    fn project_config_names(&self) -> &'static [&'static str] {
        // `.clinerules/` (rules, hooks, skills, workflows) and `.cline/`
        // (hooks, plugins, rules, skills, agents, cron): run or loaded at
        // its next session, outside any sandbox and without asking.
        // `.agents/skills` too, its skills (other agents read that folder
        // as well).
        &[".cline", ".clinerules", ".agents"]
    }

    fn describe_config(&self, name: &str) -> Option<&'static str> {
        Some(match name {
            ".cline" | ".clinerules" => "Cline CLI's project hooks, plugins and rules",
            ".agents" => "the agents' skills and plugins (Cline CLI's, Codex's)",
            "Cline" => "Cline CLI's user hooks, plugins and rules",
            _ => return None,
        })
    }

    fn project_settings_folder(&self) -> Option<&'static str> {
        Some(".cline")
    }

    fn user_config_paths(&self, env: &Environment) -> Vec<PathBuf> {
        let mut paths: Vec<PathBuf> = self.user_folder(env).into_iter().collect();
        // The folders its hooks, plugins, rules and skills also come from,
        // and the files its variables may move elsewhere.
        if let Some(home) = env.home() {
            paths.extend(["Documents/Cline", "Cline", ".agents"].map(|f| home.join(f)));
        }
        for var in &SETTINGS_VARS[1..] {
            paths.extend(env.get(var).filter(|v| !v.is_empty()).map(PathBuf::from));
        }
        paths
    }

    fn run_needs(&self, env: &Environment) -> crate::RunNeeds {
        // Its tasks, sessions and state are in `data`; the rest of its
        // folder (hooks, plugins, rules) and the settings in `data` (MCP
        // servers) stay read-only.
        let folder = self.user_folder(env);
        crate::RunNeeds {
            writable: folder.iter().map(|f| f.join("data")).collect(),
            read_only: folder.iter().map(|f| f.join("data/settings")).collect(),
            project: &[],
            hosts: &[
                "api.cline.bot",
                "app.cline.bot",
                "openrouter.ai",
                "api.anthropic.com",
            ],
            base_url_vars: &["OPENAI_BASE_URL", "ANTHROPIC_BASE_URL"],
            key_vars: &[
                "CLINE_API_KEY",
                "OPENROUTER_API_KEY",
                "ANTHROPIC_API_KEY",
                "OPENAI_API_KEY",
            ],
            config_key_vars: Vec::new(),
        }
    }

    fn user_folder(&self, env: &Environment) -> Option<PathBuf> {
        match env.get("CLINE_DIR").filter(|v| !v.is_empty()) {
            Some(dir) => Some(PathBuf::from(dir)),
            None => env.home().map(|h| h.join(".cline")),
        }
    }
}

/// A tool input naming `files`, in the shared shape (`file_path` too when
/// there is one).
fn files_input(files: &[String]) -> Value {
    let mut args = Map::new();
    if let [one] = files {
        args.insert("file_path".into(), json!(one));
    }
    let list: Vec<Value> = files.iter().map(|p| json!({"path": p})).collect();
    args.insert("files".into(), Value::Array(list));
    Value::Object(args)
}

/// Reads the fields every Cline payload carries into the shared ones: the
/// event from `hookName`, the session from `sessionContext.rootSessionId`
/// (shared by sub-agents and teammates), a sub-agent's id (the main
/// agent's `agent_id` is dropped: only a sub-agent has one here), and the
/// call or the run it is about.
fn read_common(input: &mut HookInput) {
    let session = input
        .other
        .get("sessionContext")
        .and_then(|c| c.get("rootSessionId"))
        .and_then(Value::as_str)
        .map(str::to_owned);
    if let Some(session) = session {
        input.session_id = Some(session);
    }
    let parent = input
        .other
        .get("parent_agent_id")
        .is_some_and(|p| p.as_str().is_some_and(|p| !p.is_empty()));
    // A teammate has no parent; agentctx's plugin names it a sub-agent.
    let sub = parent || input.agent_type.is_some();
    if sub {
        input.agent_type.get_or_insert_with(String::new);
    } else {
        input.agent_id = None;
    }
    let Some(hook) = input.other.get("hookName").and_then(Value::as_str) else {
        return;
    };
    let (event, source) = match hook {
        "agent_start" if sub => ("SubagentStart", None),
        "agent_start" => ("SessionStart", Some("startup")),
        "agent_resume" => ("SessionStart", Some("resume")),
        "tool_call" => ("PreToolUse", None),
        "tool_result" => ("PostToolUse", None),
        "agent_end" if sub => ("SubagentStop", None),
        "agent_end" => ("Stop", None),
        "prompt_submit" => ("UserPromptSubmit", None),
        _ => return,
    };
    if input.hook_event_name.is_none() {
        input.hook_event_name = Some(event.to_owned());
    }
    if input.source.is_none() {
        input.source = source.map(str::to_owned);
    }
    let call = ["tool_call", "tool_result"]
        .iter()
        .find_map(|key| input.other.get(*key))
        .cloned();
    if let Some(call) = call {
        input.tool_name = call.get("name").and_then(Value::as_str).map(str::to_owned);
        input.tool_use_id = call.get("id").and_then(Value::as_str).map(str::to_owned);
        input.tool_input = call.get("input").cloned();
        if hook == "tool_result" {
            input.tool_response = Some(json!({
                "output": call.get("output").cloned().unwrap_or(Value::Null),
                "error": call.get("error").cloned().unwrap_or(Value::Null),
            }));
        }
    }
    if let Some(text) = input
        .other
        .get("turn")
        .and_then(|t| t.get("outputText"))
        .and_then(Value::as_str)
    {
        input.last_assistant_message = Some(text.to_owned());
    }
    if let Some(prompt) = input
        .other
        .get("userPromptSubmit")
        .and_then(|p| p.get("prompt"))
        .cloned()
    {
        input.other.insert("prompt".into(), prompt);
    }
}

/// A sub-agent's (or a teammate's task's) result in the shared shape: its
/// answer (`output.text`), and the call as the sub-agent's run.
fn agent_result(input: &mut HookInput) {
    let Some(response) = input.tool_response.as_ref() else {
        return;
    };
    let output = response.get("output").unwrap_or(response);
    let text = output
        .get("text")
        .and_then(Value::as_str)
        .or_else(|| output.as_str());
    let Some(text) = text else { return };
    let agent_type = input
        .tool_input
        .as_ref()
        .and_then(|i| i.get("systemPrompt").or_else(|| i.get("agent")))
        .and_then(Value::as_str)
        .map(|s| s.chars().take(64).collect::<String>());
    input.tool_response = Some(json!({
        "content": [{"type": "text", "text": text}],
        "agentId": input.tool_use_id,
        "agentType": agent_type,
    }));
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, reason = "tests fail loudly")]

    use super::*;

    #[test]
    fn mcp_tools_split_at_a_double_underscore() {
        assert_eq!(
            crate::dialect::mcp_splits("agentctx__context", "__").unwrap(),
            ("mcp__agentctx__context".to_owned(), vec![])
        );
        // Either split reads the same in the shared spelling.
        let (first, others) = crate::dialect::mcp_splits("a__b__c", "__").unwrap();
        assert_eq!(first, "mcp__a__b__c");
        assert!(others.is_empty());
        assert!(crate::dialect::mcp_splits("read_files", "__").is_none());
        assert!(crate::dialect::mcp_splits("__x", "__").is_none());
    }

    #[test]
    fn a_denial_stops_the_call_with_its_reason_and_a_sandboxed_command_runs_as_changed() {
        let deny = Cline.render(&HookReply::deny("Denied: R"));
        assert_eq!(deny, json!({"cancel": true, "errorMessage": "Denied: R"}));
        let wrapped = Cline.render(&HookReply::rewrite(
            json!({"command": "agentctx exec -- ls"}),
            PermissionDecision::Allow,
        ));
        assert_eq!(
            wrapped,
            json!({"overrideInput": {"commands": ["agentctx exec -- ls"]}})
        );
        let odd = Cline.render(&HookReply::rewrite(
            json!({"file_path": "/x"}),
            PermissionDecision::Allow,
        ));
        assert_eq!(odd["cancel"], true, "{odd}");
        let context = Cline.render(&HookReply::context("PostToolUse", "C"));
        assert_eq!(context, json!({"contextModification": "C"}));
    }
}
