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
//! output or the system prompt.

use agentctx_types::HookInput;
use serde_json::{Value, json};

use super::{Dialect, LoaderFacts, Native, move_arg, rename_tool, take_command_dir};
use crate::agents_md::{BuiltinLoader, LoaderDecision};

pub(super) struct Opencode;

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

impl Dialect for Opencode {
    fn normalize(&self, input: &mut HookInput, _: Option<&str>) -> Native {
        let mut native = Native::default();
        rename_tool(input, &TOOLS, &mut native);
        // Any other name with `_` is an MCP tool, `<server>_<tool>`: its
        // every path argument is judged, and rules may name any split.
        if let Some(name) = input.tool_name.clone()
            && !TOOLS.iter().any(|(own, _)| *own == name)
            && let Some((first, others)) = super::mcp_splits(&name, '_')
        {
            input.tool_name = Some(first);
            native.tool = Some(name);
            native.aliases = others;
        }
        take_command_dir(input, "workdir", &mut native);
        if let Some(args) = input.tool_input.as_mut().and_then(Value::as_object_mut) {
            move_arg(args, "filePath", "file_path");
        }
        if input.tool_name.as_deref() == Some("Agent") {
            task_result(input);
        }
        native
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
            },
            why: "opencode loads AGENTS.md from the cwd up to the root itself, and after a read those below the cwd (never a sibling's): those are left out".to_owned(),
        })
    }
}

/// The `task` tool's output in the shared shape: the text inside
/// `<task_result>`, the child session as the sub-agent.
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
    let child = response
        .get("metadata")
        .and_then(|m| m.get("sessionId"))
        .cloned();
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
