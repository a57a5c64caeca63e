//! The context a coding agent starts with, composed once for `agentctx
//! context`, the hooks' session start and the MCP server alike: the
//! AGENTS.md chain from the project root to the folder, the project rules'
//! system prompt, the file list within its token budget (of a local folder,
//! or of a repository on GitHub or GitLab), and the memory of earlier
//! sessions of the same repository. The same input gives byte-identical
//! output: prompt caches depend on it.
//!
//! ```
//! use agentctx_config::Environment;
//! use agentctx_context::{ComposeParts, compose};
//! use agentctx_session::Host;
//! use agentctx_types::{Config, ContextPartKind};
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let repo = tempfile::tempdir()?;
//! std::fs::create_dir_all(repo.path().join(".git"))?;
//! std::fs::write(repo.path().join(".git/HEAD"), "ref: refs/heads/main\n")?;
//! std::fs::write(repo.path().join("AGENTS.md"), "# Build with make\n")?;
//! let (config, env) = (Config::default(), Environment::default());
//! let host = Host::new(&config, &env, None);
//! let composed = compose(&host, repo.path(), ComposeParts::ALL);
//! let agents = composed.parts().find(|p| p.kind == ContextPartKind::Agents);
//! assert!(agents.is_some_and(|part| part.text.contains("# Build with make")));
//! # Ok(())
//! # }
//! ```
#![deny(missing_docs)]

mod compose;
#[cfg(feature = "recall")]
mod recall;
#[cfg(feature = "remote")]
mod remote;

pub use compose::{
    ChainPart, ComposeParts, compose, count_tokens, file_list_setup, token_cache,
    with_system_prompt,
};
#[cfg(feature = "recall")]
pub use recall::{O200kCounter, RecallError, memory_index, memory_index_in, session_memory_index};
#[cfg(feature = "remote")]
pub use remote::{compose_remote, remote_options};
