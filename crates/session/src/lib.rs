//! The session an agentctx call belongs to. A [`Host`] is the invocation:
//! the effective config, the environment, the agentctx program that runs
//! and, once decided, the session's [anchor](session_anchor): its project
//! root, config and rule file fixed at its start, which every later call of
//! the session and its sub-agents uses whatever folder it names.
//!
//! ```
//! use agentctx_config::Environment;
//! use agentctx_session::Host;
//! use agentctx_types::Config;
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let repo = tempfile::tempdir()?;
//! std::fs::create_dir_all(repo.path().join(".git"))?;
//! std::fs::write(repo.path().join(".git/HEAD"), "ref: refs/heads/main\n")?;
//! std::fs::create_dir_all(repo.path().join("src"))?;
//! std::fs::write(repo.path().join(".coding-agent-rules.yaml"), "file_patterns:\n  exclude: [secrets/]\n")?;
//! let config = Config::default();
//! let env = Environment::default();
//! let host = Host::new(&config, &env, None);
//! let rules = host.rules(&repo.path().join("src"))?;
//! assert_eq!(rules.root(), std::fs::canonicalize(repo.path())?);
//! # Ok(())
//! # }
//! ```
#![deny(missing_docs)]

mod anchor;
mod host;

pub use anchor::{AnchorError, anchor_path, read_anchor, session_anchor};
pub use host::{ConfigSource, Host, RulesError, SessionPlaceError};
