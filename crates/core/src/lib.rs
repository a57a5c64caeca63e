//! The AGENTS.md hierarchy for coding agents: find the project root, load
//! the AGENTS.md chain from the root to the working directory once, then
//! report, as the agent touches paths elsewhere, only the AGENTS.md files
//! that are new or changed, as paths and mtimes, never bodies.
//!
//! ```
//! use agentctx_core::{render_resolve_paths, start_session};
//! use agentctx_types::AgentsConfig;
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let repo = tempfile::tempdir()?;
//! std::fs::create_dir_all(repo.path().join(".git"))?;
//! std::fs::write(repo.path().join(".git/HEAD"), "ref: refs/heads/main\n")?;
//! std::fs::write(repo.path().join("AGENTS.md"), "Run the tests.\n")?;
//! std::fs::create_dir_all(repo.path().join("api"))?;
//! std::fs::write(repo.path().join("api/AGENTS.md"), "Keep the API stable.\n")?;
//!
//! // Session start: the root's AGENTS.md is loaded, as one message.
//! let mut session = start_session(repo.path(), &AgentsConfig::default(), None)?;
//! assert!(session.chain.render().contains("Run the tests."));
//!
//! // The agent reads api/handler.rs: api/AGENTS.md is reported once, by path.
//! let found = session.resolver.resolve_for_path(&repo.path().join("api/handler.rs"));
//! assert_eq!(found.files.len(), 1);
//! assert!(render_resolve_paths(&found).contains("api/AGENTS.md (mtime: "));
//! assert!(session.resolver.resolve_for_path(&repo.path().join("api")).files.is_empty());
//! # Ok(())
//! # }
//! ```
//!
//! Hooks run as separate processes; [`SessionStore`] keeps a session's
//! state in a file that concurrent processes update under a lock.
#![deny(missing_docs)]

mod chain;
mod error;
mod fsutil;
mod outputs;
mod probe;
mod reminder;
mod resolver;
mod root;
mod session;
mod store;
mod trim;

pub use chain::{AdoptedFile, ChainWarning, InitialChain, render_initial_block};
pub use error::CoreError;
pub use fsutil::AGENTS_FILE_NAME;
pub use outputs::{OutputPage, OutputStore};
pub use reminder::{
    ResumeDiff, render_resolve_paths, render_resolve_paths_in, render_resume_diff,
    render_resume_diff_in, render_trimmed,
};
pub use resolver::Resolver;
pub use root::{RootOptions, find_root};
pub use session::{
    StartedSession, StoredResolve, StoredResume, resolve_in_store, resume_in_store, resume_session,
    start_session,
};
pub use store::{CorruptState, SessionStore, StoredState, is_session_id};
pub use trim::{Trimmed, trim, trim_keeping};

/// The base instructions for the model about AGENTS.md handling.
pub const AGENTS_GUIDANCE: &str = include_str!("agents_guidance.md");
