//! A rule file as parsed: the rule set plus where each entry is written.

use std::path::PathBuf;

use agentctx_types::{
    CommandRuleSet, FileListOverrides, FilePatterns, NetworkRules, RuleFileFormat, RuleSet,
};

/// One list entry (a tool name or a pattern) and its line in the rule file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    /// The entry, surrounding whitespace trimmed.
    pub text: String,
    /// 1-based line in the rule file; `None` for config `default_rules`.
    pub line: Option<u64>,
}

impl Entry {
    pub(crate) fn new(text: &str, line: Option<u64>) -> Self {
        Self {
            text: text.trim().to_owned(),
            line,
        }
    }
}

/// A rule document: a [`RuleSet`] whose entries remember their lines.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RuleDoc {
    /// Appended to the system prompt.
    pub system_prompt_extension: Option<String>,
    /// Absent: every tool passes. Present (even empty): only matching tools pass.
    pub allowed_tools: Option<Vec<Entry>>,
    /// Matching tools are denied.
    pub denied_tools: Vec<Entry>,
    /// Absent: every path passes. Present: a path must match one.
    pub include: Option<Vec<Entry>>,
    /// A matching path is denied.
    pub exclude: Vec<Entry>,
    /// Overrides for the project file list.
    pub file_list: FileListOverrides,
    /// Strict mode.
    pub strict: bool,
    /// `network`: where sandboxed commands may connect.
    pub network: Option<NetworkDoc>,
    /// `commands.deny`: command patterns denied.
    pub commands_deny: Vec<Entry>,
    /// `commands.ask`: command patterns asked about.
    pub commands_ask: Vec<Entry>,
    /// `presets`: shipped command presets, by name.
    pub presets: Vec<Entry>,
}

/// `network` of a rule file, its entries with their lines.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct NetworkDoc {
    /// Hosts that may be reached.
    pub allow: Vec<Entry>,
    /// Hosts that may not.
    pub deny: Vec<Entry>,
}

impl RuleDoc {
    /// The document of config `default_rules` (entries have no lines).
    pub fn from_rule_set(rules: &RuleSet) -> Self {
        let entries =
            |list: &[String]| list.iter().map(|t| Entry::new(t, None)).collect::<Vec<_>>();
        Self {
            system_prompt_extension: rules.system_prompt_extension.clone(),
            allowed_tools: rules.allowed_tools.as_deref().map(entries),
            denied_tools: entries(&rules.denied_tools),
            include: rules.file_patterns.include.as_deref().map(entries),
            exclude: entries(&rules.file_patterns.exclude),
            file_list: rules.file_list.clone(),
            strict: rules.strict,
            network: rules.network.as_ref().map(|n| NetworkDoc {
                allow: entries(&n.allow),
                deny: entries(&n.deny),
            }),
            commands_deny: entries(&rules.commands.deny),
            commands_ask: entries(&rules.commands.ask),
            presets: entries(&rules.presets),
        }
    }

    /// The plain rule set, for display and JSON.
    pub fn to_rule_set(&self) -> RuleSet {
        let texts = |list: &[Entry]| list.iter().map(|e| e.text.clone()).collect::<Vec<_>>();
        RuleSet {
            system_prompt_extension: self.system_prompt_extension.clone(),
            allowed_tools: self.allowed_tools.as_deref().map(texts),
            denied_tools: texts(&self.denied_tools),
            file_patterns: FilePatterns {
                include: self.include.as_deref().map(texts),
                exclude: texts(&self.exclude),
            },
            file_list: self.file_list.clone(),
            strict: self.strict,
            network: self.network.as_ref().map(|n| NetworkRules {
                allow: texts(&n.allow),
                deny: texts(&n.deny),
            }),
            commands: CommandRuleSet {
                deny: texts(&self.commands_deny),
                ask: texts(&self.commands_ask),
            },
            presets: texts(&self.presets),
        }
    }
}

/// A parsed rule file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParsedRuleFile {
    /// The file.
    pub path: PathBuf,
    /// Its form.
    pub format: RuleFileFormat,
    /// What it says.
    pub doc: RuleDoc,
    /// Unknown keys and similar.
    pub warnings: Vec<agentctx_types::RuleFinding>,
}
