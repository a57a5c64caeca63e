//! Every fact agentctx knows about each coding agent, one module per agent:
//! how its hook payloads read and how it wants to be answered (its
//! dialect), what its own AGENTS.md loader gives the model, its tools'
//! names and the paths their inputs name. What each agent does was
//! measured by running it (docs/integrations/<agent>.md, the end-to-end
//! suite); nothing outside this crate tests which agent it is.
//!
//! ```
//! use agentctx_agents::dialect;
//! use agentctx_types::{Agent, HookInput, HookReply};
//!
//! // Gemini CLI's BeforeTool for its read_file tool, in the shared shape.
//! let mut input: HookInput = serde_json::from_value(serde_json::json!({
//!     "session_id": "s1", "cwd": "/p", "hook_event_name": "BeforeTool",
//!     "tool_name": "read_file", "tool_input": {"file_path": "secrets/key"},
//! })).unwrap();
//! let gemini = dialect::of(Agent::Gemini);
//! let native = gemini.normalize(&mut input, None);
//! assert_eq!(input.hook_event_name.as_deref(), Some("PreToolUse"));
//! assert_eq!(input.tool_name.as_deref(), Some("Read"));
//! assert_eq!(native.tool.as_deref(), Some("read_file"));
//! // And a denial in the shape Gemini CLI reads.
//! let reply = gemini.render(&HookReply::deny("Denied: reading `secrets/key`."));
//! assert_eq!(reply["decision"], "deny");
//! ```
#![deny(missing_docs)]

/// The largest project file read for a fact (an agent's settings, a
/// `CLAUDE.md`): read without blocking, never more than this.
pub const PROJECT_FILE_LIMIT: u64 = 4 * 1024 * 1024;

mod claude;
pub use claude::OwnVerdict;
mod cline;
mod codex;
mod copilot;
pub mod dialect;
mod gemini;
mod loader;
mod opencode;
mod qwen;
mod run;
mod tools;

pub use codex::CODEX_PROFILE;
pub use dialect::{plain_tags, render_reply};
pub use loader::{
    BuiltinLoader, CLAUDE_LOADER_SINCE, CLAUDE_PLUGIN, ClaudeRelease, LoaderDecision,
    ReleaseSource, builtin_loader, claude_user_settings,
};
pub use run::RunNeeds;
pub use tools::{collect_strings, normalize_tool, patch_paths, percent_decode, tool_paths};

/// `X.Y.Z` at the start of a version text (`2.1.330 (Claude Code)`).
pub fn parse_version(text: &str) -> Option<(u32, u32, u32)> {
    let word = text
        .split_whitespace()
        .find(|w| w.chars().next().is_some_and(|c| c.is_ascii_digit()))?;
    let mut parts = word.split('.').map(|p| {
        p.trim_end_matches(|c: char| !c.is_ascii_digit())
            .parse::<u32>()
    });
    Some((
        parts.next()?.ok()?,
        parts.next()?.ok()?,
        parts.next()?.ok()?,
    ))
}
