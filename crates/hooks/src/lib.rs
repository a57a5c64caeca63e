//! agentctx inside coding agents: the hook protocol of Claude Code and
//! Codex (payloads in, typed replies out), what each event does, the
//! initial context it gives, and install/uninstall of the agents' settings.
//!
//! Every entry point here is infallible from the agent's point of view: a
//! hook that cannot use its input answers nothing and says why in its
//! notes; the only refusals are the project rules'.
//!
//! ```
//! use agentctx_config::Environment;
//! use agentctx_hooks::{Host, handle};
//! use agentctx_types::Config;
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let repo = tempfile::tempdir()?;
//! std::fs::create_dir_all(repo.path().join(".git"))?;
//! std::fs::write(repo.path().join(".git/HEAD"), "ref: refs/heads/main\n")?;
//! std::fs::write(repo.path().join(".coding-agent-rules.yaml"), "denied_tools: [github/delete_file]\n")?;
//! let config = Config::default();
//! let env = Environment::default();
//! let host = Host::new(&config, &env, None);
//!
//! // Claude Code's PreToolUse for an MCP tool the rules deny.
//! let payload = serde_json::json!({
//!     "session_id": "s1", "cwd": repo.path(), "hook_event_name": "PreToolUse",
//!     "tool_name": "mcp__github__delete_file", "tool_input": {"path": "README.md"},
//! });
//! let outcome = handle(payload.to_string().as_bytes(), None, &host);
//! let reply = serde_json::to_value(outcome.reply.unwrap())?;
//! assert_eq!(reply["hookSpecificOutput"]["permissionDecision"], "deny");
//! assert!(reply["hookSpecificOutput"]["permissionDecisionReason"]
//!     .as_str().unwrap().contains("denied_tools entry `github/delete_file`"));
//! # Ok(())
//! # }
//! ```
#![deny(missing_docs)]

/// The largest project file the hooks read for a fact (an agent's
/// settings, a `CLAUDE.md`): read without blocking, never more than this.
const PROJECT_FILE_LIMIT: u64 = 4 * 1024 * 1024;

mod agents_md;
mod anchor;
mod aside;
mod codex_profile;
mod compose;
#[cfg(feature = "remote")]
mod compose_remote;
mod dialect;
mod escape;
mod exec;
mod guard;
mod handle;
mod host;
mod input;
pub mod install;
mod prompt;
mod protect;
#[cfg(feature = "recall")]
mod recall;
mod shell;
mod tools;
mod transcript;

pub use agents_md::{
    BuiltinLoader, CLAUDE_LOADER_SINCE, ClaudeRelease, LoaderDecision, ReleaseSource,
    builtin_loader, claude_user_settings,
};
pub use compose::{
    ComposeParts, compose, count_tokens, file_list_setup, token_cache, with_system_prompt,
};
#[cfg(feature = "remote")]
pub use compose_remote::{compose_remote, remote_options};
pub use dialect::{plain_tags, render_reply};
pub use exec::{
    CODEX_PROFILE, ExecError, ExecMode, ExecOutcome, ExecRequest, codex_permissions, exec,
    write_cwd_script,
};
pub use guard::{Guard, Verdict};
pub use handle::{HookOutcome, detect_agent, handle, handle_event, handle_unread};
pub use host::{ConfigSource, Host, RulesError, SessionPlaceError};
pub use input::{ReadError, ReadLimits, Received, read_bounded};
#[cfg(feature = "recall")]
pub use recall::{O200kCounter, RecallError, memory_index, memory_index_in, session_memory_index};
pub use shell::{
    Access, Assignment, NamedPath, Redirect, ShellCommand, ShellError, ShellScript, ShellWord,
    Unverifiable, WordsChecked, expand_pattern, parse_shell,
};
pub use tools::{normalize_tool, patch_paths, tool_paths};
