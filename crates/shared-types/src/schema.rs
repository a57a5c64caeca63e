//! JSON Schemas generated from the types, by name.

use schemars::{Schema, schema_for};

/// The names accepted by [`schema_named`], in the order `agentctx schema` lists them.
pub const SCHEMA_NAMES: [&str; 14] = [
    "agents-config",
    "resolved-agents",
    "system-reminder-type",
    "rules",
    "file-list-config",
    "config",
    "session-state",
    "initial-bundle",
    "rules-report",
    "rule-decision",
    "file-list-report",
    "hook-input",
    "codex-notify",
    "hook-reply",
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
        "initial-bundle" => schema_for!(crate::InitialBundle),
        "rules-report" => schema_for!(crate::RulesReport),
        "rule-decision" => schema_for!(crate::RuleDecision),
        "file-list-report" => schema_for!(crate::FileListReport),
        "hook-input" => schema_for!(crate::HookInput),
        "codex-notify" => schema_for!(crate::CodexNotify),
        "hook-reply" => schema_for!(crate::HookReply),
        _ => return None,
    };
    Some(schema)
}
