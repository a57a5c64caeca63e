//! JSON Schemas generated from the types, by name.

use schemars::{Schema, schema_for};

/// The names accepted by [`schema_named`], in the order `agentctx schema` lists them.
pub const SCHEMA_NAMES: [&str; 39] = [
    "agents-config",
    "resolved-agents",
    "system-reminder-type",
    "rules",
    "file-list-config",
    "config",
    "session-state",
    "session-anchor",
    "initial-bundle",
    "rules-report",
    "rule-decision",
    "file-list-report",
    "hook-input",
    "codex-notify",
    "hook-reply",
    "root-info",
    "resume-report",
    "trim-report",
    "config-entries",
    "composed-context",
    "rule-decisions",
    "lint-report",
    "prompt-text",
    "capture-records",
    "search-hits",
    "capture-shown",
    "memory-context",
    "memory-stats",
    "capture-event",
    "memory-index",
    "project-identity",
    "output-page",
    "mcp-context",
    "mcp-agents-resolve",
    "mcp-rules-check",
    "mcp-files",
    "mcp-mem-query",
    "mcp-id",
    "mcp-mem-save",
];

/// The JSON Schema of the type behind `name`, or `None` for an unknown name.
///
/// ```
/// let schema = agentctx_types::schema_named("agents-config").unwrap();
/// let json = serde_json::to_value(&schema).unwrap();
/// assert_eq!(json["additionalProperties"], false);
/// assert!(json["properties"]["initial"].is_object());
/// ```
pub fn schema_named(name: &str) -> Option<Schema> {
    let schema = match name {
        "agents-config" => schema_for!(crate::AgentsConfig),
        "resolved-agents" => schema_for!(crate::ResolvedAgents),
        "system-reminder-type" => schema_for!(crate::SystemReminderType),
        "rules" => schema_for!(crate::RuleSet),
        "file-list-config" => schema_for!(crate::FileListConfig),
        "config" => schema_for!(crate::Config),
        "session-state" => schema_for!(crate::SessionState),
        "session-anchor" => schema_for!(crate::SessionAnchor),
        "initial-bundle" => schema_for!(crate::InitialBundle),
        "rules-report" => schema_for!(crate::RulesReport),
        "rule-decision" => schema_for!(crate::RuleDecision),
        "file-list-report" => schema_for!(crate::FileListReport),
        "hook-input" => schema_for!(crate::HookInput),
        "codex-notify" => schema_for!(crate::CodexNotify),
        "hook-reply" => schema_for!(crate::HookReply),
        "root-info" => schema_for!(crate::RootInfo),
        "resume-report" => schema_for!(crate::ResumeReport),
        "trim-report" => schema_for!(crate::TrimReport),
        "output-page" => schema_for!(crate::OutputPage),
        "mcp-context" => schema_for!(crate::ContextRequest),
        "mcp-agents-resolve" => schema_for!(crate::ResolveRequest),
        "mcp-rules-check" => schema_for!(crate::RulesCheckRequest),
        "mcp-files" => schema_for!(crate::FilesRequest),
        "mcp-mem-query" => schema_for!(crate::MemQueryRequest),
        "mcp-id" => schema_for!(crate::IdRequest),
        "mcp-mem-save" => schema_for!(crate::MemSaveRequest),
        "config-entries" => schema_for!(Vec<crate::ConfigEntry>),
        "composed-context" => schema_for!(crate::ComposedContext),
        "rule-decisions" => schema_for!(Vec<crate::RuleDecision>),
        "lint-report" => schema_for!(crate::LintReport),
        "prompt-text" => schema_for!(crate::PromptText),
        "capture-records" => schema_for!(Vec<crate::CaptureRecord>),
        "search-hits" => schema_for!(Vec<crate::SearchHit>),
        "capture-shown" => schema_for!(crate::CaptureShown),
        "memory-context" => schema_for!(crate::MemoryContext),
        "memory-index" => schema_for!(crate::MemoryIndex),
        "project-identity" => schema_for!(crate::ProjectIdentity),
        "memory-stats" => schema_for!(crate::MemoryStats),
        "capture-event" => schema_for!(crate::CaptureEvent),
        _ => return None,
    };
    Some(schema)
}
