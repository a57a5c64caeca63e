//! opencode 1.18.33 has no command hooks: agentctx's plugin
//! (`install/opencode_plugin.js`) calls `agentctx hook --agent opencode`
//! with Claude Code's payload shape built from opencode's plugin calls
//! (`tool.execute.before` is `PreToolUse`, `tool.execute.after`
//! `PostToolUse`, the first `experimental.chat.system.transform` of a
//! session `SessionStart`, of a child session `SubagentStart`), opencode's
//! own tool names and arguments (`read{filePath}`, `bash{workdir}`), and a
//! child session's calls under its parent's session with the child as
//! `agent_id`. It reads the reply in Claude Code's shape: it throws the
//! denial's reason (the model reads it as the tool's result), replaces
//! the arguments with `updatedInput`, and appends context to the tool's
//! output or the system prompt. It makes agentctx's shell opencode's
//! (`shell`, through its `config` hook): a sandboxed command then keeps
//! its text, and runs in the sandbox because the plugin hands the shell
//! its wrapped line through `shell.env`; opencode's own `permission.bash`
//! patterns judge the command as written.

use std::path::{Path, PathBuf};

use agentctx_config::Environment;
use agentctx_types::HookInput;
use serde_json::{Value, json};

use crate::dialect::{Dialect, LoaderFacts, Native, move_arg, rename_tool, take_command_dir};
use crate::loader::{BuiltinLoader, LoaderDecision};

pub(super) struct Opencode;

/// The key of the plugin's payload that says opencode runs its commands
/// through agentctx's shell (`install/opencode_plugin.js`).
const SHELL_FLAG: &str = "agentctx_shell";

/// opencode's tools by their shared names.
const TOOLS: [(&str, &str); 14] = [
    ("read", "Read"),
    ("write", "Write"),
    ("edit", "Edit"),
    ("multiedit", "Edit"),
    ("patch", "apply_patch"),
    // Given to GPT models instead of edit/write (`patchText`).
    ("apply_patch", "apply_patch"),
    ("bash", "Bash"),
    ("glob", "Glob"),
    ("grep", "Grep"),
    ("list", "LS"),
    ("task", "Agent"),
    ("webfetch", "WebFetch"),
    ("todowrite", "TodoWrite"),
    ("skill", "Skill"),
];

/// opencode's tools that read an MCP server's resources, `{server, uri}`.
const RESOURCE_TOOLS: [&str; 3] = [
    "read_mcp_resource",
    "list_mcp_resources",
    "list_mcp_resource_templates",
];

/// What in its config folders (`~/.config/opencode`, `.opencode`)
/// configures it, its plugins and their packages: read-only under
/// `agentctx run`, where the rest of those folders is writable.
const CONFIG_ENTRIES: [&str; 17] = [
    // Its package file: `bun install`, which opencode runs there at start,
    // runs the scripts it names.
    "package.json",
    "opencode.json",
    "opencode.jsonc",
    "config.json",
    "AGENTS.md",
    "plugin",
    "plugins",
    "agent",
    "agents",
    "command",
    "commands",
    "mode",
    "modes",
    "tool",
    "tools",
    "themes",
    "node_modules",
];

impl Dialect for Opencode {
    fn settings_vars(&self) -> &'static [&'static str] {
        &["OPENCODE_CONFIG"]
    }

    fn capture_source(&self) -> &'static str {
        "opencode-plugin"
    }

    fn describe_config(&self, name: &str) -> Option<&'static str> {
        Some(match name {
            ".opencode" => "opencode's project plugins and settings",
            "opencode.json" | "opencode.jsonc" => "opencode's config (plugins, MCP servers)",
            // Its user folder (`~/.config/opencode`).
            "opencode" => "opencode's user config and plugins",
            _ => return None,
        })
    }

    fn project_config_names(&self) -> &'static [&'static str] {
        // Its project plugins (code it runs in its own process), and its
        // config, read from every folder up to the root: its `plugin` and
        // local `mcp` entries run code.
        &[".opencode", "opencode.json", "opencode.jsonc"]
    }

    fn project_settings_folder(&self) -> Option<&'static str> {
        Some(".opencode")
    }

    fn run_needs(&self, env: &Environment) -> crate::RunNeeds {
        // Its data, state and cache folders (XDG), and its config folder,
        // where it writes `.gitignore`, `package.json` and installs its
        // plugin package at start (measured with 1.18.33); what in it
        // configures it, its plugins and their packages stays read-only.
        let config = env
            .xdg_dir("XDG_CONFIG_HOME", ".config")
            .map(|d| d.join("opencode"));
        let mut writable: Vec<PathBuf> = [
            ("XDG_DATA_HOME", ".local/share"),
            ("XDG_STATE_HOME", ".local/state"),
            ("XDG_CACHE_HOME", ".cache"),
        ]
        .into_iter()
        .filter_map(|(var, default)| env.xdg_dir(var, default).map(|d| d.join("opencode")))
        .collect();
        writable.extend(config.clone());
        let read_only = config
            .map(|dir| CONFIG_ENTRIES.map(|name| dir.join(name)).to_vec())
            .unwrap_or_default();
        crate::RunNeeds {
            writable,
            read_only,
            project: &[(".opencode", &CONFIG_ENTRIES)],
            hosts: &[
                // Its model list, and the registry its plugin package is
                // installed from at start.
                "models.dev",
                "models.opencode.ai",
                "opencode.ai",
                "registry.npmjs.org",
                "api.anthropic.com",
                "api.openai.com",
                "openrouter.ai",
                "generativelanguage.googleapis.com",
            ],
            base_url_vars: &["ANTHROPIC_BASE_URL", "OPENAI_BASE_URL"],
            key_vars: &[
                "ANTHROPIC_API_KEY",
                "OPENAI_API_KEY",
                "OPENROUTER_API_KEY",
                "GEMINI_API_KEY",
                "GOOGLE_GENERATIVE_AI_API_KEY",
            ],
            config_key_vars: Vec::new(),
        }
    }

    fn user_config_paths(&self, env: &Environment) -> Vec<PathBuf> {
        // Its user config and plugins.
        env.xdg_dir("XDG_CONFIG_HOME", ".config")
            .map(|dir| vec![dir.join("opencode")])
            .unwrap_or_default()
    }

    fn normalize(&self, input: &mut HookInput, _: Option<&str>) -> Native {
        let mut native = Native::default();
        rename_tool(input, &TOOLS, &mut native);
        // Its MCP resource tools name their server in `server`: they are
        // that server's (`github/*` in the rules covers them).
        if let Some(name) = input.tool_name.clone()
            && RESOURCE_TOOLS.contains(&name.as_str())
            && let Some(server) = input
                .tool_input
                .as_ref()
                .and_then(|i| i.get("server"))
                .and_then(Value::as_str)
                .filter(|s| !s.is_empty())
        {
            input.tool_name = Some(format!("mcp__{server}__{name}"));
            native.tool = Some(name);
        }
        // Any other name with `_` is an MCP tool, `<server>_<tool>`: its
        // every path argument is judged, and rules may name any split.
        if native.tool.is_none()
            && let Some(name) = input.tool_name.clone()
            && !TOOLS.iter().any(|(own, _)| *own == name)
            && let Some((first, others)) = crate::dialect::mcp_splits(&name, "_")
        {
            input.tool_name = Some(first);
            native.tool = Some(name);
            native.aliases = others;
        }
        take_command_dir(input, "workdir", &mut native);
        // agentctx's plugin made agentctx's shell opencode's: a sandboxed
        // command reaches it through `shell.env`, the command unchanged.
        native.command_kept = input
            .other
            .remove(SHELL_FLAG)
            .is_some_and(|v| v == Value::Bool(true));
        if let Some(args) = input.tool_input.as_mut().and_then(Value::as_object_mut) {
            move_arg(args, "filePath", "file_path");
        }
        if input.tool_name.as_deref() == Some("Agent") {
            task_result(input);
        }
        native
    }

    /// Asked only when the plugin could not make agentctx's shell
    /// opencode's (an older plugin, or its shell file is gone).
    fn own_command_rules(&self, cwd: &Path, env: &Environment) -> Option<String> {
        let file = config_files(cwd, env)
            .into_iter()
            .find(|file| has_bash_rules(file))?;
        Some(format!(
            "opencode's own rules for commands ({}: permission.bash) would judge agentctx's wrapper instead of the command, and agentctx's shell is not opencode's (`agentctx install opencode` again installs it)",
            file.display()
        ))
    }

    /// opencode resolves `~` as a folder name (`path.resolve`).
    fn expands_tilde(&self) -> bool {
        false
    }

    /// The plugin's calls carry no permission mode; a wrapped command is
    /// shown as it is where opencode asks.
    fn never_asks(&self, _: Option<&str>) -> bool {
        true
    }

    fn loader(&self, _: &LoaderFacts<'_>) -> Option<LoaderDecision> {
        Some(LoaderDecision {
            loader: BuiltinLoader {
                initial: true,
                nested_on_read: true,
                nested_tools: &["Read"],
                nested_below_cwd_only: true,
                initial_cwd_only: false,
            },
            why: "opencode loads AGENTS.md from the cwd up to the root itself, and after a read those below the cwd (never a sibling's): those are left out".to_owned(),
        })
    }
}

/// opencode's config files: the user's, `$OPENCODE_CONFIG`, and each
/// `opencode.json(c)` (and `.opencode/opencode.json(c)`) from the cwd up to
/// the git root.
fn config_files(cwd: &Path, env: &Environment) -> Vec<PathBuf> {
    let names = ["opencode.json", "opencode.jsonc", "config.json"];
    let mut files: Vec<PathBuf> = Vec::new();
    if let Some(dir) = env.xdg_dir("XDG_CONFIG_HOME", ".config") {
        files.extend(names.iter().map(|n| dir.join("opencode").join(n)));
    }
    if let Some(file) = env.get("OPENCODE_CONFIG") {
        files.push(PathBuf::from(file));
    }
    for dir in cwd.ancestors() {
        for name in &names[..2] {
            files.push(dir.join(name));
            files.push(dir.join(".opencode").join(name));
        }
        if dir.join(".git").exists() {
            break;
        }
    }
    files
}

/// Whether an opencode config sets `permission.bash` patterns (an object
/// with any key but `*`). One it cannot read (comments, a parse error)
/// counts when it names `bash` under `permission` at all.
fn has_bash_rules(file: &Path) -> bool {
    let Ok(text) = agentctx_fs::read_to_string(file, crate::PROJECT_FILE_LIMIT) else {
        return false;
    };
    match serde_json::from_str::<Value>(&text) {
        Ok(value) => value
            .pointer("/permission/bash")
            .and_then(Value::as_object)
            .is_some_and(|rules| rules.keys().any(|k| k != "*")),
        Err(_) => text.contains("\"permission\"") && text.contains("\"bash\""),
    }
}

/// The `task` tool's output in the shared shape: the text inside
/// `<task_result>`, the child session and the call as the sub-agent's run.
fn task_result(input: &mut HookInput) {
    let Some(response) = input.tool_response.as_ref() else {
        return;
    };
    let output = response
        .get("output")
        .and_then(Value::as_str)
        .or_else(|| response.as_str());
    let Some(output) = output else { return };
    let text = match (output.find("<task_result>"), output.rfind("</task_result>")) {
        (Some(start), Some(end)) if start < end => {
            output[start + "<task_result>".len()..end].trim().to_owned()
        }
        _ => output.to_owned(),
    };
    // A child session can be resumed (`task_id`): each run is its call's.
    let child = response
        .get("metadata")
        .and_then(|m| m.get("sessionId"))
        .and_then(Value::as_str)
        .map(|child| match input.tool_use_id.as_deref() {
            Some(call) => format!("{child}:{call}"),
            None => child.to_owned(),
        });
    let agent_type = input
        .tool_input
        .as_ref()
        .and_then(|i| i.get("subagent_type"))
        .cloned();
    input.tool_response = Some(json!({
        "content": [{"type": "text", "text": text}],
        "agentId": child,
        "agentType": agent_type,
    }));
}
