//! Project agent rules: the config section and the rule set a rule file holds.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::{FileListFormat, PositiveInt};

/// The `project_agent_rules` section of the config.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct ProjectAgentRulesConfig {
    /// `false`: no rules at all, whatever rule files exist.
    pub enabled: bool,
    /// Rule files looked for at the project root; the first that exists wins.
    pub rule_files: Vec<String>,
    /// The rules used when no rule file exists (empty: no restriction).
    pub default_rules: RuleSet,
}

/// The rule files looked for, in order, when the config names none.
pub const DEFAULT_RULE_FILES: [&str; 3] = [
    ".coding-agent-rules.yaml",
    ".coding-agent-rules.md",
    ".github/AGENTS.md",
];

impl Default for ProjectAgentRulesConfig {
    fn default() -> Self {
        Self {
            enabled: true,
            rule_files: DEFAULT_RULE_FILES.iter().map(|f| (*f).to_owned()).collect(),
            default_rules: RuleSet::default(),
        }
    }
}

/// What a rule file says: prompt extension, tool lists, file patterns and
/// file-list overrides. Keys are snake_case, as in the rule files.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct RuleSet {
    /// Text appended to the system prompt, after the base prompt.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub system_prompt_extension: Option<String>,
    /// Absent: every tool passes. Present: only matching tools pass (an empty list passes none).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub allowed_tools: Option<Vec<String>>,
    /// Matching tools are denied, whatever `allowed_tools` says.
    pub denied_tools: Vec<String>,
    /// Which files file-operation tools may touch.
    pub file_patterns: FilePatterns,
    /// Overrides for the project file list.
    pub file_list: FileListOverrides,
}

/// `file_patterns`: gitignore-like globs relative to the project root.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct FilePatterns {
    /// Absent: every path inside the root passes. Present: a path must match one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub include: Option<Vec<String>>,
    /// A matching path is denied, whatever `include` says (matched case-insensitively).
    pub exclude: Vec<String>,
}

/// `file_list` in a rule file: overrides of `file_list_context` for this project.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct FileListOverrides {
    /// Added to the configured exclude patterns.
    pub exclude_patterns: Vec<String>,
    /// Added to the configured include patterns.
    pub include_patterns: Vec<String>,
    /// Replaces the configured depth.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_depth: Option<PositiveInt>,
    /// Replaces the configured format.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub format: Option<FileListFormat>,
}
