//! GitHub Copilot CLI 1.0.102. agentctx installs PascalCase hooks, which
//! get Claude-style payloads (Claude tool names, Copilot argument names:
//! `path`, `paths`), and the camelCase `sessionStart`/`subagentStart`
//! (whose payloads carry no event name: the install names it with
//! `--event`). Copilot reads only a top-level `additionalContext` (not
//! Claude's `hookSpecificOutput`), a flat `permissionDecision` and
//! `modifiedArgs`; it shows a denial's reason to the model, but not the
//! stderr of exit 2. A sub-agent's tool calls carry its own id as
//! `session_id`, with `agent_id` and `parent_agent_id`.

use agentctx_types::{HookInput, HookReply, PermissionDecision};
use serde_json::{Map, Value, json};

use crate::dialect::{Dialect, LoaderFacts, Native};
use crate::loader::{BuiltinLoader, LoaderDecision};

pub(super) struct Copilot;

/// Copilot CLI's user folder: `$COPILOT_HOME`, else `~/.copilot`.
fn copilot_home(env: &agentctx_config::Environment) -> Option<std::path::PathBuf> {
    env.get("COPILOT_HOME")
        .map(std::path::PathBuf::from)
        .or_else(|| env.home().map(|h| h.join(".copilot")))
}

/// The camelCase events install uses, by their shared names.
const CAMEL_EVENTS: [(&str, &str); 2] = [
    ("sessionStart", "SessionStart"),
    ("subagentStart", "SubagentStart"),
];

impl Dialect for Copilot {
    fn settings_vars(&self) -> &'static [&'static str] {
        &["COPILOT_HOME"]
    }

    fn capture_source(&self) -> &'static str {
        "copilot-hook"
    }

    fn describe_config(&self, name: &str) -> Option<&'static str> {
        Some(match name {
            ".github/hooks" | ".github/copilot" => "Copilot CLI's repository hooks or settings",
            _ => return None,
        })
    }

    fn start_folder_config(&self) -> &'static [&'static str] {
        // Repository hooks, which it runs, and its settings, loaded from
        // the folder a session starts in (1.0.102, measured).
        &[".github/hooks", ".github/copilot"]
    }

    fn run_needs(&self, env: &agentctx_config::Environment) -> crate::RunNeeds {
        crate::RunNeeds {
            writable: copilot_home(env).into_iter().collect(),
            read_only: Vec::new(),
            project: &[],
            hosts: &[
                "api.githubcopilot.com",
                "*.githubcopilot.com",
                "api.github.com",
                "github.com",
            ],
            base_url_vars: &["COPILOT_PROVIDER_BASE_URL"],
            key_vars: &[
                "COPILOT_GITHUB_TOKEN",
                "GH_TOKEN",
                "GITHUB_TOKEN",
                "COPILOT_PROVIDER_API_KEY",
            ],
            config_key_vars: Vec::new(),
        }
    }

    fn user_settings(&self, env: &agentctx_config::Environment) -> Option<std::path::PathBuf> {
        copilot_home(env).map(|dir| dir.join("settings.json"))
    }

    fn user_config_paths(&self, env: &agentctx_config::Environment) -> Vec<std::path::PathBuf> {
        // Where `COPILOT_HOME` puts its files, and in the home.
        let folders = copilot_home(env)
            .into_iter()
            .chain(env.home().map(|h| h.join(".copilot")));
        let mut paths = Vec::new();
        for folder in folders {
            for file in ["settings.json", "mcp-config.json", "hooks"] {
                let path = folder.join(file);
                if !paths.contains(&path) {
                    paths.push(path);
                }
            }
        }
        paths
    }

    fn normalize(&self, input: &mut HookInput, event: Option<&str>) -> Native {
        let mut native = Native::default();
        if input.hook_event_name.is_none() {
            camel(input, event);
        }
        // Its SubagentStop carries the sub-agent's answer; the transcript
        // it names is the parent's `events.jsonl`, not Claude Code's JSONL.
        if input.hook_event_name.as_deref() == Some("SubagentStop")
            && input.agent_transcript_path.is_none()
        {
            input.agent_transcript_path = input.transcript_path.clone();
        }
        // A sub-agent's calls: the session is its parent's.
        if let (Some(_), Some(Value::String(parent))) =
            (&input.agent_id, input.other.get("parent_agent_id"))
        {
            input.session_id = Some(parent.clone());
        }
        // MCP tools are `<server>-<tool>`; built-in names have no `-`.
        if let Some(name) = input.tool_name.clone()
            && let Some((first, others)) = crate::dialect::mcp_splits(&name, "-")
        {
            input.tool_name = Some(first);
            native.tool = Some(name);
            native.aliases = others;
        }
        // Grep and Glob name their scopes in `paths`.
        if let Some(args) = input.tool_input.as_mut().and_then(Value::as_object_mut)
            && let Some(paths) = args.get("paths").cloned()
        {
            // `string | string[]` in its schema.
            let paths = match paths {
                Value::Array(paths) => paths,
                one => vec![one],
            };
            // Every entry is judged: the first as the scope when none is
            // named, all of them among `files` (added to any already there).
            let paths: Vec<&str> = paths.iter().filter_map(Value::as_str).collect();
            if let Some(first) = paths.first()
                && !args.contains_key("path")
            {
                args.insert("path".into(), Value::String((*first).to_owned()));
            }
            let mut files = match args.remove("files") {
                Some(Value::Array(files)) => files,
                Some(other) => vec![other],
                None => Vec::new(),
            };
            files.extend(paths.iter().map(|p| json!({"path": p})));
            args.insert("files".into(), Value::Array(files));
        }
        native
    }

    fn render(&self, reply: &HookReply) -> Value {
        let out = &reply.hook_specific_output;
        let mut flat = Map::new();
        match (&out.permission_decision, &out.updated_input) {
            (Some(PermissionDecision::Deny), _) => {
                flat.insert("permissionDecision".into(), json!("deny"));
                flat.insert(
                    "permissionDecisionReason".into(),
                    json!(out.permission_decision_reason),
                );
            }
            // No decision with it: Copilot's `allow` would also skip its
            // own approval of the command (its changelog), which agentctx
            // has no business granting.
            (_, Some(args)) => {
                flat.insert("modifiedArgs".into(), args.clone());
            }
            _ => {}
        }
        if let Some(text) = &out.additional_context {
            flat.insert("additionalContext".into(), json!(text));
        }
        Value::Object(flat)
    }

    fn loader(&self, _: &LoaderFacts<'_>) -> Option<LoaderDecision> {
        Some(LoaderDecision {
            loader: BuiltinLoader {
                initial: true,
                nested_on_read: true,
                nested_tools: &["Read"],
                nested_below_cwd_only: false,
                initial_cwd_only: false,
            },
            why: "Copilot CLI sends every instruction file from the root to the cwd, and those of a viewed file's folders (siblings too): the chain and their bodies are left out".to_owned(),
        })
    }

    fn start_dir_env(&self) -> Option<&'static str> {
        Some("COPILOT_PROJECT_DIR")
    }

    /// Its payloads carry no permission mode; a wrapped command is shown
    /// as it is where Copilot asks.
    fn never_asks(&self, _: Option<&str>) -> bool {
        true
    }

    /// Its `SubagentStop` carries the sub-agent's answer.
    fn captures_after_agent_tool(&self) -> bool {
        false
    }
}

/// A camelCase payload (`sessionId`, `agentId`, ...) in the shared shape,
/// its event named by the install.
fn camel(input: &mut HookInput, event: Option<&str>) {
    let shared = event.map(|e| {
        CAMEL_EVENTS
            .iter()
            .find(|(own, _)| *own == e)
            .map_or(e, |(_, shared)| shared)
    });
    input.hook_event_name = shared.map(str::to_owned);
    let take = |input: &mut HookInput, key: &str| match input.other.remove(key) {
        Some(Value::String(text)) => Some(text),
        _ => None,
    };
    if input.session_id.is_none() {
        input.session_id = take(input, "sessionId");
    }
    if input.transcript_path.is_none() {
        input.transcript_path = take(input, "transcriptPath");
    }
    if input.agent_id.is_none() {
        input.agent_id = take(input, "agentId");
    }
    if input.agent_type.is_none() {
        input.agent_type = take(input, "agentType");
    }
    // The sub-agent's parent is the session itself.
    input.other.remove("parentAgentId");
    if input.source.is_none() {
        input.source = take(input, "source").map(|s| match s.as_str() {
            "new" => "startup".to_owned(),
            _ => s,
        });
    }
}
