//! AgentMem: a sub-agent's final output, captured from the hook the agent
//! runs, saved as a UOCS Markdown file in a memory folder: once per run,
//! with secrets masked, never overwriting, never in the agent's way.
//!
//! ```
//! use agentctx_agentmem::{CaptureOutcome, CaptureSettings, Trigger, capture};
//! use agentctx_types::HookInput;
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let memory = tempfile::tempdir()?;
//! let settings = CaptureSettings {
//!     root: memory.path().to_path_buf(),
//!     codex_sessions: memory.path().join("codex"),
//!     retries: 0,
//!     retry_delay: std::time::Duration::ZERO,
//!     redact: true,
//!     now: "2026-01-25T09:12:00+09:00[Asia/Tokyo]".parse()?,
//!     identity: Default::default(),
//! };
//! let hook = HookInput {
//!     hook_event_name: Some("SubagentStop".into()),
//!     agent_id: Some("a1".into()),
//!     agent_type: Some("engineer".into()),
//!     agent_transcript_path: Some("/tmp/agent.jsonl".into()),
//!     last_assistant_message: Some("🎯 COMPLETED: [AGENT:engineer] Fixed the auth race".into()),
//!     ..HookInput::default()
//! };
//! let CaptureOutcome::Captured { path, .. } = capture(&Trigger::hook(hook.clone()), &settings, None)? else {
//!     panic!("expected a capture");
//! };
//! assert!(path.ends_with("IMPLEMENTATION/2026-01/2026-01-25-091200_AGENT-engineer_IMPLEMENTATION_fixed-the-auth-race.md"));
//! // The same run again writes nothing.
//! assert!(matches!(capture(&Trigger::hook(hook), &settings, None)?, CaptureOutcome::Duplicate { .. }));
//! # Ok(())
//! # }
//! ```
#![deny(missing_docs)]

mod capture;
#[cfg(feature = "store")]
mod cjk;
mod completion;
#[cfg(feature = "store")]
mod context;
mod eras;
mod events;
mod extract;
mod format;
mod gitleaks;
mod identity;
mod keys;
#[cfg(feature = "store")]
mod local;
#[cfg(feature = "store")]
mod parse;
#[cfg(feature = "postgres")]
pub mod pg;
#[cfg(feature = "store")]
mod rank;
#[cfg(feature = "store")]
mod recall;
mod redact;
mod run;
#[cfg(feature = "store")]
mod source;
#[cfg(feature = "store")]
mod store;
mod tail;

pub use capture::{
    AGENT_KEY, CaptureError, CaptureOutcome, CaptureSettings, Origin, OutputSource,
    PENDING_TTL_SECONDS, PendingAttempt, Provenance, SOURCE_KEY, Trigger, TriggerError, capture,
    complete_pending, expand_home, zoned_stamp,
};
#[cfg(feature = "store")]
pub use context::TokenCounter;
pub use events::{RecentEvents, append_event, recent_events};
pub use identity::{IdentityOptions, identify, normalize_remote, recall_keys};
#[cfg(feature = "store")]
pub use local::{FULL_CHECK_LIMIT, LocalError, MemoryStore, Reconciled};
#[cfg(feature = "store")]
pub use parse::{ParseError, capture_markdown};
#[cfg(feature = "store")]
pub use recall::RecallRequest;
#[cfg(feature = "store")]
pub use run::StoreLocation;
pub use run::{
    CaptureFailure, CaptureReport, capture_with_config, complete_pending_with_config, events_path,
    identity_options, memory_root,
};
#[cfg(feature = "store")]
pub use source::CaptureSource;
#[cfg(feature = "store")]
pub use store::{CaptureStore, Filter, Scope, StoreError, short_id};
/// A JSONL transcript's lines from the newest, read from its end in
/// bounded chunks.
pub use tail::ReverseLines;
/// A JSONL transcript's entries from the newest, read from its end in
/// bounded chunks (what a hook reads to learn, say, the agent's release).
pub use tail::reverse_json as transcript_entries;
