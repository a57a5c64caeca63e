//! Every type that crosses a boundary in agentctx: the config file, the JSON
//! that commands print and hooks exchange, and session state.
//!
//! These types are the single source of truth for their JSON Schemas
//! (`agentctx schema NAME`, committed under `docs/schema/`). The crate does no
//! I/O: it describes data, plus the one pattern language ([`PatternSet`])
//! that rule files and the file list share.
//!
//! ```
//! use agentctx_types::Config;
//!
//! // Every section and key is optional; defaults fill the rest.
//! let config: Config = serde_json::from_str(r#"{"agents": {"initial": {"maxFiles": 4}}}"#)?;
//! assert_eq!(config.agents.initial.max_files.get(), 4);
//! assert_eq!(config.agents.initial.max_bytes.get(), 262_144);
//!
//! // Unknown keys and non-positive limits are errors, never silently dropped.
//! assert!(serde_json::from_str::<Config>(r#"{"agents": {"initial": {"maxFile": 4}}}"#).is_err());
//! assert!(serde_json::from_str::<Config>(r#"{"agents": {"initial": {"maxFiles": 0}}}"#).is_err());
//! # Ok::<(), serde_json::Error>(())
//! ```
#![deny(missing_docs)]

mod agentmem;
mod agents;
mod cli;
mod config;
mod context;
mod filelist;
mod hooks;
mod integrations;
mod mcp;
mod names;
mod paths;
#[cfg(feature = "patterns")]
mod patterns;
mod positive;
mod reminder;
mod rules;
#[cfg(feature = "schema")]
mod schema;
mod session;
pub mod wording;

pub use agentmem::{
    AgentMemConfig, CaptureEvent, CaptureRecord, CaptureShown, IdentityRule, MemoryContext,
    MemoryIndex, MemoryStats, ProjectIdentity, RecallConfig, SearchHit,
};
pub use agents::{
    AgentsConfig, DEFAULT_MARKERS, InitialBundle, InitialConfig, OmitReason, OmittedAgentFile,
    OutputPage, ResolvedAgentFile, ResolvedAgents, ResolverConfig, ResumeReport, RootConfig,
    RootInfo, RootSource, SystemReminderType, TrimReport,
};
pub use cli::{ConfigEntry, ConfigOrigin};
pub use config::Config;
pub use context::{ComposedContext, ContextPart, ContextPartKind, join_parts};
pub use filelist::{FileListConfig, FileListFormat, FileListPosition, FileListReport};
pub use hooks::{
    Agent, BackgroundTask, CodexNotify, HookInput, HookReply, HookSpecificOutput,
    PermissionDecision,
};
pub use integrations::{AgentsMdBodies, ClaudeCodeConfig, CodexConfig};
pub use mcp::{
    ContextRequest, DEFAULT_MAX_TOKENS, FilesRequest, IdRequest, MemQueryRequest, MemSaveRequest,
    Paging, ResolveRequest, RulesCheckRequest,
};
pub use names::UnknownName;
pub use paths::normalize_lexically;
#[cfg(feature = "patterns")]
pub use patterns::{BadPattern, PatternSet, expand_pattern};
pub use positive::PositiveInt;
pub use reminder::{ReminderEnvelope, system_reminder};
pub use rules::{
    CommandRuleSet, DEFAULT_HOME_SECRETS, DEFAULT_RULE_FILES, DEFAULT_SANDBOX_WRITABLE,
    DecisionRule, DecisionSubject, FileListOverrides, FilePatterns, LintReport, NetworkRules,
    OnRuleError, ProjectAgentRulesConfig, PromptText, RuleDecision, RuleFileCapture,
    RuleFileFormat, RuleFinding, RuleSet, RulesReport, RulesSource, SandboxMode, UserFilePatterns,
    UserNetwork, UserRules, normalize_tool_name,
};
#[cfg(feature = "schema")]
pub use schema::{SCHEMA_NAMES, schema_named};
pub use session::{
    FileId, LoadedVersion, SESSION_ANCHOR_VERSION, SESSION_STATE_VERSION, SessionAnchor,
    SessionState,
};
