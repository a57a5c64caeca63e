//! Gemini CLI 0.61.0: `BeforeTool`/`AfterTool` command hooks with its own
//! tool names (`read_file`, `run_shell_command`, ...); a denial is
//! `{"decision": "deny", "reason"}` (the reason reaches the model as it
//! is); context goes in `hookSpecificOutput.additionalContext`, where every
//! `<` and `>` is escaped, so it is written as plain text; a changed tool
//! input is `hookSpecificOutput.tool_input`. Sub-agents (`invoke_agent`)
//! fire no events of their own: their tool calls carry the parent's
//! session, and their output is the `AfterTool` of `invoke_agent`.

use std::path::Path;

use agentctx_types::{HookInput, HookReply, PermissionDecision, ReminderEnvelope};
use serde_json::{Value, json};

use crate::dialect::{
    Dialect, LoaderFacts, Native, move_arg, plain_reply, rename_tool, take_command_dir,
};
use crate::loader::{BuiltinLoader, LoaderDecision};

pub(super) struct Gemini;

/// Gemini CLI's tools by their shared names.
const TOOLS: [(&str, &str); 13] = [
    ("read_file", "Read"),
    ("read_many_files", "Read"),
    ("write_file", "Write"),
    ("replace", "Edit"),
    ("run_shell_command", "Bash"),
    ("glob", "Glob"),
    ("grep_search", "Grep"),
    ("list_directory", "LS"),
    ("invoke_agent", "Agent"),
    ("web_fetch", "WebFetch"),
    ("google_web_search", "WebSearch"),
    ("write_todos", "TodoWrite"),
    ("activate_skill", "Skill"),
];

/// Its events by their shared names.
const EVENTS: [(&str, &str); 4] = [
    ("BeforeTool", "PreToolUse"),
    ("AfterTool", "PostToolUse"),
    ("BeforeAgent", "UserPromptSubmit"),
    ("AfterAgent", "Stop"),
];

impl Dialect for Gemini {
    fn settings_vars(&self) -> &'static [&'static str] {
        &["GEMINI_CLI_HOME"]
    }

    fn capture_source(&self) -> &'static str {
        "gemini-hook"
    }

    fn describe_config(&self, name: &str) -> Option<&'static str> {
        Some(match name {
            ".gemini" => "Gemini CLI's project settings and hooks",
            _ => return None,
        })
    }

    fn project_config_names(&self) -> &'static [&'static str] {
        // Its project settings and hooks.
        &[".gemini"]
    }

    fn project_settings_folder(&self) -> Option<&'static str> {
        Some(".gemini")
    }

    fn loads_env_file(&self) -> Option<(&'static str, &'static str)> {
        // Measured (docs/integrations/): its hooks run under `bash -c`,
        // which runs a `BASH_ENV` from that file first.
        Some((".gemini", "gemini"))
    }

    fn run_needs(&self, env: &agentctx_config::Environment) -> crate::RunNeeds {
        crate::RunNeeds {
            writable: self
                .user_settings(env)
                .and_then(|s| s.parent().map(std::path::Path::to_path_buf))
                .into_iter()
                .collect(),
            read_only: Vec::new(),
            project: &[],
            hosts: &[
                "generativelanguage.googleapis.com",
                "cloudcode-pa.googleapis.com",
                "oauth2.googleapis.com",
                "accounts.google.com",
                "www.googleapis.com",
            ],
            base_url_vars: &["GOOGLE_GEMINI_BASE_URL", "GOOGLE_VERTEX_BASE_URL"],
            key_vars: &["GEMINI_API_KEY", "GOOGLE_API_KEY"],
            config_key_vars: Vec::new(),
        }
    }

    fn user_settings(&self, env: &agentctx_config::Environment) -> Option<std::path::PathBuf> {
        let base = env
            .get("GEMINI_CLI_HOME")
            .map(std::path::PathBuf::from)
            .or_else(|| env.home())?;
        Some(base.join(".gemini/settings.json"))
    }

    fn user_config_paths(&self, env: &agentctx_config::Environment) -> Vec<std::path::PathBuf> {
        // Its folder where `GEMINI_CLI_HOME` puts it, and in the home:
        // settings, and extensions (they carry hooks and MCP servers).
        let folders = self
            .user_settings(env)
            .and_then(|s| s.parent().map(std::path::Path::to_path_buf))
            .into_iter()
            .chain(env.home().map(|h| h.join(".gemini")));
        let mut paths = Vec::new();
        for folder in folders {
            for path in [folder.join("settings.json"), folder.join("extensions")] {
                if !paths.contains(&path) {
                    paths.push(path);
                }
            }
        }
        paths
    }

    fn normalize(&self, input: &mut HookInput, _: Option<&str>) -> Native {
        let mut native = Native::default();
        if let Some(event) = input.hook_event_name.as_deref()
            && let Some((_, shared)) = EVENTS.iter().find(|(own, _)| *own == event)
        {
            input.hook_event_name = Some((*shared).to_owned());
        }
        // The main agent's answer, for `agentmem.capture_on_stop`.
        if input.hook_event_name.as_deref() == Some("Stop")
            && let Some(Value::String(answer)) = input.other.get("prompt_response")
        {
            input.last_assistant_message = Some(answer.clone());
        }
        // MCP tools: `mcp_<server>_<tool>`, spelt out in `mcp_context`.
        if let Some(context) = input.other.get("mcp_context")
            && let (Some(server), Some(tool)) = (
                context.get("server_name").and_then(Value::as_str),
                context.get("tool_name").and_then(Value::as_str),
            )
        {
            native.tool = input.tool_name.clone();
            input.tool_name = Some(format!("mcp__{server}__{tool}"));
            return native;
        }
        rename_tool(input, &TOOLS, &mut native);
        take_command_dir(input, "dir_path", &mut native);
        let tool = input.tool_name.clone().unwrap_or_default();
        if let Some(args) = input.tool_input.as_mut().and_then(Value::as_object_mut) {
            if matches!(tool.as_str(), "Glob" | "Grep" | "LS") {
                // Its schemas take extra arguments: a `path` beside
                // `dir_path` is judged too, never in its place.
                if args.contains_key("path")
                    && let Some(Value::String(dir)) = args.get("dir_path").cloned()
                {
                    push_file(args, dir);
                }
                move_arg(args, "dir_path", "path");
            }
            // read_many_files: its `include` entries are paths and patterns.
            if native.tool.as_deref() == Some("read_many_files")
                && let Some(Value::Array(include)) = args.get("include").cloned()
            {
                let files: Vec<Value> = include
                    .iter()
                    .filter_map(Value::as_str)
                    .map(|p| json!({"path": p}))
                    .collect();
                args.insert("files".into(), Value::Array(files));
            }
        }
        spellings(input, &mut native);
        if tool == "Agent" {
            sub_agent_result(input);
        }
        native
    }

    fn render(&self, reply: &HookReply) -> Value {
        let out = &reply.hook_specific_output;
        let event = EVENTS
            .iter()
            .find(|(_, shared)| *shared == out.hook_event_name)
            .map_or(out.hook_event_name.as_str(), |(own, _)| own);
        match (&out.permission_decision, &out.updated_input) {
            (Some(PermissionDecision::Deny), _) => json!({
                "decision": "deny",
                "reason": out.permission_decision_reason.clone().unwrap_or_default(),
            }),
            (_, Some(input)) => json!({
                "hookSpecificOutput": {"hookEventName": event, "tool_input": input},
            }),
            _ => {
                let plain = plain_reply(reply);
                json!({
                    "hookSpecificOutput": {
                        "hookEventName": event,
                        "additionalContext": plain.hook_specific_output.additional_context,
                    },
                })
            }
        }
    }

    fn envelope(&self) -> ReminderEnvelope {
        ReminderEnvelope::AgentctxReminder
    }

    fn loader(&self, facts: &LoaderFacts<'_>) -> Option<LoaderDecision> {
        let home = facts.env.home();
        let files = [
            Some(facts.cwd.join(".gemini/settings.json")),
            home.map(|h| h.join(".gemini/settings.json")),
            Some(Path::new("/etc/gemini-cli/settings.json").to_path_buf()),
        ];
        let named = files
            .iter()
            .flatten()
            .find_map(|file| context_file_names(file));
        let (on, why) = match &named {
            Some((file, names)) if names.iter().any(|n| n == "AGENTS.md") => (
                true,
                format!(
                    "Gemini CLI loads AGENTS.md itself (context.fileName in {}): the chain and the bodies after its file tools are left out",
                    file.display()
                ),
            ),
            Some((file, _)) => (
                false,
                format!(
                    "Gemini CLI's context.fileName in {} leaves AGENTS.md out: agentctx gives the chain",
                    file.display()
                ),
            ),
            None => (
                false,
                "Gemini CLI reads only GEMINI.md by default (no context.fileName): agentctx gives the AGENTS.md chain (`agentctx install gemini` sets it instead)".to_owned(),
            ),
        };
        Some(LoaderDecision {
            loader: BuiltinLoader {
                initial: on,
                nested_on_read: on,
                nested_tools: if on {
                    &["Read", "Write", "Edit", "LS"]
                } else {
                    &[]
                },
                nested_below_cwd_only: false,
                initial_cwd_only: false,
            },
            why,
        })
    }

    fn start_dir_env(&self) -> Option<&'static str> {
        Some("GEMINI_PROJECT_DIR")
    }

    /// Gemini CLI resolves `~` as a folder name (`path.resolve`).
    fn expands_tilde(&self) -> bool {
        false
    }

    /// Its payloads carry no approval mode; a wrapped command is shown as
    /// it is where Gemini CLI asks.
    fn never_asks(&self, _: Option<&str>) -> bool {
        true
    }
}

/// Adds `path` to the call's `files` (judged with the tool's access).
fn push_file(args: &mut serde_json::Map<String, Value>, path: String) {
    let files = args
        .entry("files")
        .or_insert_with(|| Value::Array(Vec::new()));
    if let Value::Array(files) = files {
        files.push(json!({"path": path}));
    }
}

/// The paths Gemini CLI may open for what a call names, each judged (added
/// to `files`): as 0.61.0 resolves them, every NUL removed, a leading `@`
/// and the `/` or `\` after it stripped (`resolveDefensiveToolPath`),
/// `file://` and `%XX` decoded (`resolveToRealPath`). Its `replace` looks
/// for a relative path that does not exist elsewhere in the workspace
/// (`correctPath`): that call cannot be judged.
fn spellings(input: &mut HookInput, native: &mut Native) {
    let cwd = input.cwd.clone().unwrap_or_default();
    let edit = input.tool_name.as_deref() == Some("Edit");
    let Some(args) = input.tool_input.as_mut().and_then(Value::as_object_mut) else {
        return;
    };
    let mut named: Vec<(&str, String)> = ["file_path", "path", "dir_path"]
        .iter()
        .filter_map(|key| Some((*key, args.get(*key)?.as_str()?.to_owned())))
        .collect();
    if let Some(Value::Array(files)) = args.get("files") {
        named.extend(
            files
                .iter()
                .filter_map(|f| f.get("path")?.as_str())
                .map(|p| ("files", p.to_owned())),
        );
    }
    let mut extra: Vec<String> = Vec::new();
    for (key, path) in &named {
        let opened = opened_as(path);
        for spelling in &opened {
            if spelling != path && !extra.contains(spelling) {
                extra.push(spelling.clone());
            }
        }
        let missing = opened.iter().all(|p| {
            !Path::new(p).is_absolute() && !p.starts_with('~') && !Path::new(&cwd).join(p).exists()
        });
        if edit && *key == "file_path" && missing {
            native.unjudgeable = Some(format!(
                "`{path}` does not exist here, and Gemini CLI would look for a file of that name elsewhere in the workspace; name the file by its full path"
            ));
        }
    }
    for path in extra {
        push_file(args, path);
    }
}

/// Every path Gemini CLI may open for `path` (itself first).
fn opened_as(path: &str) -> Vec<String> {
    let clean = path.replace('\0', "");
    let mut out = vec![clean.clone()];
    if let Some(rest) = clean.strip_prefix('@').filter(|r| !r.is_empty()) {
        out.push(rest.trim_start_matches(['/', '\\']).to_owned());
        out.push(rest.to_owned());
    }
    for spelling in out.clone() {
        let url = spelling.strip_prefix("file://").unwrap_or(&spelling);
        out.push(crate::tools::percent_decode(url));
    }
    out.retain(|p| !p.is_empty());
    out.dedup();
    out
}

/// `context.fileName` of a Gemini settings file, when it sets one.
fn context_file_names(file: &Path) -> Option<(std::path::PathBuf, Vec<String>)> {
    let text = agentctx_fs::read_to_string(file, crate::PROJECT_FILE_LIMIT).ok()?;
    let value: Value = serde_json::from_str(&text).ok()?;
    let names = match value.get("context")?.get("fileName")? {
        Value::String(name) => vec![name.clone()],
        Value::Array(names) => names
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_owned)
            .collect(),
        _ => return None,
    };
    Some((file.to_path_buf(), names))
}

/// `invoke_agent`'s result in the shared shape: the sub-agent's own answer
/// (`returnDisplay.result`, `{"response": ...}`; else the text after
/// `Result:` in `llmContent`).
fn sub_agent_result(input: &mut HookInput) {
    let Some(response) = input.tool_response.as_ref() else {
        return;
    };
    let from_display = response
        .get("returnDisplay")
        .and_then(|d| d.get("result"))
        .and_then(Value::as_str)
        .map(|r| match serde_json::from_str::<Value>(r) {
            Ok(Value::Object(map)) => map
                .get("response")
                .and_then(Value::as_str)
                .map_or_else(|| r.to_owned(), str::to_owned),
            _ => r.to_owned(),
        });
    let from_llm = || {
        let text = match response.get("llmContent")? {
            Value::String(text) => text.clone(),
            Value::Array(parts) => parts
                .iter()
                .filter_map(|p| p.get("text").and_then(Value::as_str))
                .collect::<Vec<_>>()
                .join("\n"),
            _ => return None,
        };
        Some(
            text.split_once("Result:\n")
                .map_or(text.clone(), |(_, r)| r.to_owned()),
        )
    };
    if let Some(text) = from_display.or_else(from_llm) {
        let agent = input
            .tool_input
            .as_ref()
            .and_then(|i| i.get("agent_name"))
            .cloned();
        input.tool_response = Some(json!({
            "content": [{"type": "text", "text": text}],
            "agentType": agent,
        }));
    }
}
