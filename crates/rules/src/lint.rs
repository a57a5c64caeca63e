//! `agentctx rules lint`: everything wrong with a rule file, not only the first thing.

use std::path::Path;

use agentctx_types::{LintReport, ProjectAgentRulesConfig, RuleFinding};

use crate::doc::{Entry, RuleDoc};
use crate::patterns::EntryPatterns;
use crate::tools::{ToolList, ToolPattern};

/// Checks the project's rule file: parse errors, unknown keys, invalid
/// globs, entries that can never match, and an allow list that the deny
/// list wholly cancels.
pub fn lint(root: &Path, config: &ProjectAgentRulesConfig) -> LintReport {
    let Some(parsed) = crate::source::read_rule_file(root, &config.rule_files) else {
        return LintReport {
            file: None,
            findings: Vec::new(),
        };
    };
    let parsed = match parsed {
        Ok(parsed) => parsed,
        Err(error) => {
            return LintReport {
                file: Some(error.path.clone()),
                findings: vec![RuleFinding {
                    path: error.path,
                    line: error.line,
                    message: error.message,
                }],
            };
        }
    };
    let path = parsed.path.clone();
    let mut findings: Vec<RuleFinding> = parsed
        .warnings
        .iter()
        .map(|w| RuleFinding {
            path: w.path.clone(),
            line: w.line,
            message: w.message.clone(),
        })
        .collect();
    let mut at = |line: Option<u64>, message: String| {
        findings.push(RuleFinding {
            path: path.clone(),
            line,
            message,
        });
    };
    check_doc(&parsed.doc, &mut at);
    findings.sort_by_key(|f| f.line.unwrap_or(0));
    LintReport {
        file: Some(parsed.path),
        findings,
    }
}

fn check_doc(doc: &RuleDoc, at: &mut impl FnMut(Option<u64>, String)) {
    let tool_lists = [
        ("allowed_tools", doc.allowed_tools.as_deref().unwrap_or(&[])),
        ("denied_tools", &doc.denied_tools),
    ];
    for (list, entries) in tool_lists {
        for entry in entries {
            if ToolPattern::parse(&entry.text) == ToolPattern::Never {
                at(
                    entry.line,
                    format!(
                        "{list} entry `{}` can never match a tool name (use an exact name, `server/*` or `*`)",
                        entry.text
                    ),
                );
            }
        }
    }
    let pattern_lists = [
        ("include", doc.include.as_deref().unwrap_or(&[]), false),
        ("exclude", &doc.exclude, true),
    ];
    for (list, entries, case_insensitive) in pattern_lists {
        for entry in entries {
            if let Err(bad) = EntryPatterns::compile(std::slice::from_ref(entry), case_insensitive)
            {
                at(
                    entry.line,
                    format!(
                        "{list} pattern `{}` is not a valid glob: {}",
                        entry.text, bad.message
                    ),
                );
            } else if never_matches_a_path(&entry.text) {
                at(
                    entry.line,
                    format!(
                        "{list} pattern `{}` can never match: paths are judged relative to the root, after `.` and `..` are resolved",
                        entry.text
                    ),
                );
            }
        }
    }
    if let Some(allowed) = doc.allowed_tools.as_deref()
        && !allowed.is_empty()
    {
        let denied = ToolList::new(&doc.denied_tools);
        if allowed.iter().all(|entry| wholly_denied(entry, &denied)) {
            let line = allowed.first().and_then(|e| e.line);
            at(
                line,
                "every allowed_tools entry is also denied by denied_tools: no tool can be called"
                    .to_owned(),
            );
        }
    }
}

fn never_matches_a_path(pattern: &str) -> bool {
    let trimmed = pattern.trim().trim_matches('/');
    trimmed.is_empty()
        || trimmed
            .split('/')
            .any(|segment| segment == ".." || segment == ".")
}

fn wholly_denied(entry: &Entry, denied: &ToolList) -> bool {
    match ToolPattern::parse(&entry.text) {
        ToolPattern::Exact(name) => denied.first_match(&name).is_some(),
        // `server/*` is wholly denied only by `server/*` or `*`.
        ToolPattern::Server(prefix) => denied.entries().any(|d| {
            matches!(ToolPattern::parse(&d.text), ToolPattern::Any)
                || ToolPattern::parse(&d.text) == ToolPattern::Server(prefix.clone())
        }),
        ToolPattern::Any => denied
            .entries()
            .any(|d| ToolPattern::parse(&d.text) == ToolPattern::Any),
        ToolPattern::Never => true,
    }
}
