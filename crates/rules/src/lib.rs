//! Project agent rules: a rule file at the project root extends the system
//! prompt, restricts which tools may be called and which files may be
//! touched. Decisions cannot be walked around with `..`, absolute paths,
//! symlinks or case, and every decision says which rule made it and where
//! that rule is written.
//!
//! ```
//! use agentctx_rules::Rules;
//! use agentctx_types::ProjectAgentRulesConfig;
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let root = tempfile::tempdir()?;
//! std::fs::write(root.path().join(".coding-agent-rules.yaml"), "\
//! allowed_tools: [github/*, Read, Edit]
//! denied_tools: [github/delete_file]
//! file_patterns:
//!   exclude: [\"**/.env\", secrets/]
//! ")?;
//! let rules = Rules::load(root.path(), &ProjectAgentRulesConfig::default())?;
//!
//! assert!(rules.check_tool("github/create_issue").allowed);
//! let denied = rules.check_tool("github/delete_file");
//! assert!(!denied.allowed);
//! assert!(denied.message.contains(".coding-agent-rules.yaml:2"));
//!
//! assert!(rules.check_file("src/main.rs".as_ref()).allowed);
//! assert!(!rules.check_file("src/../secrets/key.txt".as_ref()).allowed);
//! assert!(!rules.check_file("app/.ENV".as_ref()).allowed);
//! # Ok(())
//! # }
//! ```
#![deny(missing_docs)]

mod commands;
mod doc;
mod engine;
mod error;
mod lint;
mod markdown;
mod paths;
mod patterns;
mod presets;
mod prompt;
mod reminder;
mod source;
mod tools;
mod yaml;

pub use commands::{
    CommandAction, CommandMatch, CommandPattern, CommandPatternError, CommandRuleOrigin,
    CommandRules, Invocation, Places,
};
pub use doc::{Entry, NetworkDoc, ParsedRuleFile, RuleDoc};
pub use engine::{DefaultRulesError, FileChecker, Rules, counterparts};
pub use error::RuleFileError;
pub use lint::lint;
pub use paths::{OnDisk, physical_path};
pub use presets::{PRESETS, Preset, preset};
pub use prompt::compose_system_prompt;
pub use reminder::render_permission_decision;
pub use source::parse_rule_file;
