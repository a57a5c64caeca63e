//! `agentctx hook`: agentctx inside coding agents. A hook call's payload is
//! read within bounds, translated from the agent's dialect
//! (agentctx-agents) into the shared shape, tied to its session's anchor
//! (agentctx-session), decided (the initial context from agentctx-context,
//! AGENTS.md reminders, the guard's verdict from agentctx-guard, a shell
//! command wrapped for agentctx-exec, a sub-agent's output captured) and
//! answered in the agent's own shape.
//!
//! Every entry point here is infallible from the agent's point of view: a
//! hook that cannot use its input answers nothing and says why in its
//! notes; the only refusals are the project rules'.
//!
//! ```
//! use agentctx_config::Environment;
//! use agentctx_hooks::handle;
//! use agentctx_session::Host;
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

mod codex_profile;
mod handle;
mod input;
mod prompt;
mod transcript;

pub use handle::{HookOutcome, handle, handle_event, handle_unread};
pub use input::{ReadError, ReadLimits, Received, read_bounded};
