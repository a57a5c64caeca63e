//! Finding and reading the rule file.

use std::path::Path;

use agentctx_types::RuleFileFormat;

use crate::doc::{ParsedRuleFile, RuleDoc};
use crate::error::RuleFileError;

/// The largest rule file read: a rule file is text a person writes.
const RULE_FILE_LIMIT: u64 = 8 * 1024 * 1024;

/// The form a rule file is parsed as: YAML for `.yaml`/`.yml`, Markdown otherwise.
pub fn format_of(path: &Path) -> RuleFileFormat {
    match path.extension().and_then(|e| e.to_str()) {
        Some(ext) if ext.eq_ignore_ascii_case("yaml") || ext.eq_ignore_ascii_case("yml") => {
            RuleFileFormat::Yaml
        }
        _ => RuleFileFormat::Markdown,
    }
}

/// The first of `candidates` (relative to `root`) that exists, parsed.
/// `None` when none exists. A file that exists but cannot be read, is not
/// UTF-8 or does not parse is an error: it is never skipped for the next
/// candidate, because that would quietly apply rules the project did not
/// choose.
pub fn read_rule_file(
    root: &Path,
    candidates: &[String],
) -> Option<Result<ParsedRuleFile, RuleFileError>> {
    let path = candidates
        .iter()
        .map(|c| root.join(c))
        .find(|p| std::fs::symlink_metadata(p).is_ok())?;
    Some(parse_rule_file(&path))
}

/// Reads and parses one rule file.
pub fn parse_rule_file(path: &Path) -> Result<ParsedRuleFile, RuleFileError> {
    let text = read_rule_text(path)?;
    parse_rule_text(path, &text)
}

/// The text of a rule file: a file of the project (a link leading outside
/// it is an error), UTF-8, without a byte-order mark.
pub fn read_rule_text(path: &Path) -> Result<String, RuleFileError> {
    let fail = |message: String| RuleFileError {
        path: path.to_path_buf(),
        line: None,
        column: None,
        message,
    };
    // A rule file that is a link to something outside the project (or not
    // a regular file) would put that file into the system prompt.
    if let (Some(root), Ok(real)) = (path.parent(), std::fs::canonicalize(path)) {
        let root = std::fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf());
        let project = if root.ends_with(".github") {
            root.parent().map(Path::to_path_buf).unwrap_or(root)
        } else {
            root
        };
        if !real.starts_with(&project) {
            return Err(fail(format!(
                "it leads to {}, outside the project root; a rule file must be a file of the project",
                real.display()
            )));
        }
        if !std::fs::metadata(&real).is_ok_and(|m| m.is_file()) {
            return Err(fail("it is not a regular file".to_owned()));
        }
    }
    let bytes = agentctx_fs::read(path, RULE_FILE_LIMIT)
        .map_err(|e| fail(format!("cannot read it: {e}")))?;
    let text = String::from_utf8(bytes).map_err(|e| {
        let offset = e.utf8_error().valid_up_to();
        let line = e.as_bytes()[..offset]
            .iter()
            .filter(|b| **b == b'\n')
            .count()
            + 1;
        RuleFileError {
            path: path.to_path_buf(),
            line: u64::try_from(line).ok(),
            column: None,
            message: "not valid UTF-8".to_owned(),
        }
    })?;
    // A byte-order mark is not part of the first line (a heading there
    // would otherwise not be a heading).
    Ok(match text.strip_prefix('\u{feff}') {
        Some(rest) => rest.to_owned(),
        None => text,
    })
}

/// Parses the text of the rule file at `path` (its name decides the form).
pub fn parse_rule_text(path: &Path, text: &str) -> Result<ParsedRuleFile, RuleFileError> {
    let format = format_of(path);
    let (doc, warnings) = match format {
        RuleFileFormat::Yaml => crate::yaml::parse(path, text)?,
        RuleFileFormat::Markdown => {
            let (doc, notes) = crate::markdown::parse(text);
            let warnings = notes
                .into_iter()
                .map(|(line, message)| agentctx_types::RuleFinding {
                    path: path.to_path_buf(),
                    line: Some(line),
                    message,
                })
                .collect();
            (doc, warnings)
        }
    };
    check_network(path, &doc)?;
    check_commands(path, &doc)?;
    Ok(ParsedRuleFile {
        path: path.to_path_buf(),
        format,
        doc,
        warnings,
    })
}

/// A command pattern or preset name that means nothing breaks the rule
/// file at its line: a denial dropped would let through what it named.
fn check_commands(path: &Path, doc: &RuleDoc) -> Result<(), RuleFileError> {
    let fail = |entry: &crate::doc::Entry, message: String| RuleFileError {
        path: path.to_path_buf(),
        line: entry.line,
        column: None,
        message,
    };
    for entry in doc.commands_deny.iter().chain(&doc.commands_ask) {
        crate::commands::CommandPattern::parse(&entry.text)
            .map_err(|error| fail(entry, error.to_string()))?;
    }
    for entry in &doc.presets {
        if crate::presets::preset(&entry.text).is_none() {
            return Err(fail(entry, unknown_preset(&entry.text)));
        }
    }
    Ok(())
}

/// The message for a preset name that is not one.
pub(crate) fn unknown_preset(name: &str) -> String {
    let known: Vec<&str> = crate::presets::PRESETS.iter().map(|p| p.name).collect();
    format!(
        "unknown preset `{name}` (the presets are {})",
        known.join(", ")
    )
}

/// A network entry that names nothing breaks the rule file at its line,
/// in either form: an allow list that silently does not apply is worse
/// than none, and a deny entry dropped would let through what it named.
fn check_network(path: &Path, doc: &RuleDoc) -> Result<(), RuleFileError> {
    let Some(network) = &doc.network else {
        return Ok(());
    };
    let broken = network.allow.iter().chain(&network.deny).find_map(|entry| {
        agentctx_network::HostRule::parse(&entry.text)
            .err()
            .map(|error| (entry, error))
    });
    match broken {
        Some((entry, error)) => Err(RuleFileError {
            path: path.to_path_buf(),
            line: entry.line,
            column: None,
            message: error.to_string(),
        }),
        None => Ok(()),
    }
}
