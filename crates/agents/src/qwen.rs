//! Qwen Code 0.15.10: Claude Code's event names and payload shapes with
//! Gemini CLI's tool names (`read_file`, `run_shell_command`, `agent`);
//! replies in Claude Code's shape, where context is escaped, so it is
//! written as plain text. Its `SessionStart` answer never reaches the model
//! (it fires the event without reading the answer, and not at all in `-p`:
//! source `cli.js` of 0.15.10, and measured): the first prompt of a
//! session, and the first after a compaction or `/clear`, gives the
//! initial context. A sub-agent's tool
//! calls carry the parent's session and no `agent_id`; its `SubagentStop`
//! carries its answer.

use agentctx_types::{HookInput, HookReply, ReminderEnvelope};
use serde_json::Value;

use crate::dialect::{
    Dialect, LoaderFacts, Native, move_arg, plain_reply, rename_tool, take_command_dir,
};
use crate::loader::{BuiltinLoader, LoaderDecision};

pub(super) struct Qwen;

/// Qwen Code's tools by their shared names.
const TOOLS: [(&str, &str); 12] = [
    ("read_file", "Read"),
    ("write_file", "Write"),
    ("edit", "Edit"),
    ("run_shell_command", "Bash"),
    ("monitor", "Bash"),
    ("glob", "Glob"),
    ("grep_search", "Grep"),
    ("list_directory", "LS"),
    ("agent", "Agent"),
    ("web_fetch", "WebFetch"),
    ("todo_write", "TodoWrite"),
    ("skill", "Skill"),
];

impl Dialect for Qwen {
    fn capture_source(&self) -> &'static str {
        "qwen-hook"
    }

    fn describe_config(&self, name: &str) -> Option<&'static str> {
        Some(match name {
            ".qwen" => "Qwen Code's project settings and hooks",
            _ => return None,
        })
    }

    fn project_config_names(&self) -> &'static [&'static str] {
        // Its project settings and hooks.
        &[".qwen"]
    }

    fn project_settings_folder(&self) -> Option<&'static str> {
        Some(".qwen")
    }

    fn loads_env_file(&self) -> Option<(&'static str, &'static str)> {
        // Measured (docs/integrations/): its hooks run under `bash -c`,
        // which runs a `BASH_ENV` from that file first.
        Some((".qwen", "qwen"))
    }

    fn run_needs(&self, env: &agentctx_config::Environment) -> crate::RunNeeds {
        crate::RunNeeds {
            writable: env.home().map(|h| h.join(".qwen")).into_iter().collect(),
            read_only: Vec::new(),
            project: &[],
            hosts: &[
                "dashscope.aliyuncs.com",
                "dashscope-intl.aliyuncs.com",
                "chat.qwen.ai",
                "portal.qwen.ai",
            ],
            base_url_vars: &["OPENAI_BASE_URL"],
            key_vars: &["OPENAI_API_KEY", "DASHSCOPE_API_KEY"],
            config_key_vars: Vec::new(),
        }
    }

    fn user_settings(&self, env: &agentctx_config::Environment) -> Option<std::path::PathBuf> {
        env.home().map(|home| home.join(".qwen/settings.json"))
    }

    fn user_config_paths(&self, env: &agentctx_config::Environment) -> Vec<std::path::PathBuf> {
        // Extensions carry hooks and MCP servers.
        env.home()
            .map(|home| {
                vec![
                    home.join(".qwen/settings.json"),
                    home.join(".qwen/extensions"),
                ]
            })
            .unwrap_or_default()
    }

    fn normalize(&self, input: &mut HookInput, _: Option<&str>) -> Native {
        let mut native = Native::default();
        rename_tool(input, &TOOLS, &mut native);
        take_command_dir(input, "directory", &mut native);
        if let Some(args) = input.tool_input.as_mut().and_then(Value::as_object_mut)
            && input.tool_name.as_deref() == Some("LS")
        {
            move_arg(args, "dir_path", "path");
        }
        native
    }

    fn render(&self, reply: &HookReply) -> Value {
        serde_json::to_value(plain_reply(reply)).unwrap_or(Value::Null)
    }

    fn envelope(&self) -> ReminderEnvelope {
        ReminderEnvelope::AgentctxReminder
    }

    fn loader(&self, _: &LoaderFacts<'_>) -> Option<LoaderDecision> {
        Some(LoaderDecision {
            loader: BuiltinLoader {
                initial: true,
                ..BuiltinLoader::default()
            },
            why: "Qwen Code loads QWEN.md and AGENTS.md from the root to the cwd itself, and no nested file: the chain is left out, nested files are agentctx's".to_owned(),
        })
    }

    fn start_dir_env(&self) -> Option<&'static str> {
        Some("QWEN_PROJECT_DIR")
    }

    fn never_asks(&self, mode: Option<&str>) -> bool {
        matches!(mode, Some("yolo" | "bypassPermissions" | "dontAsk"))
    }

    /// Measured with 0.15.10: `updatedInput` is read from a
    /// `PermissionRequest` reply only (which fires when it would ask), never
    /// from `PreToolUse`.
    fn rewrites_input(&self) -> bool {
        false
    }

    fn captures_after_agent_tool(&self) -> bool {
        false
    }

    fn start_may_be_missed(&self) -> bool {
        true
    }
}
