//! Rule files that cannot be used.

use std::path::PathBuf;

/// A rule file that cannot be read or parsed, or holds an invalid glob.
/// Never ignored silently: the rules become `default_rules`, or deny
/// everything under `on_error: deny_all`, and this error is reported.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{}{}: {message}", .path.display(), position(*.line, *.column))]
pub struct RuleFileError {
    /// The rule file.
    pub path: PathBuf,
    /// 1-based line, when known.
    pub line: Option<u64>,
    /// 1-based column, when known.
    pub column: Option<u64>,
    /// What is wrong.
    pub message: String,
}

fn position(line: Option<u64>, column: Option<u64>) -> String {
    match (line, column) {
        (Some(l), Some(c)) => format!(":{l}:{c}"),
        (Some(l), None) => format!(":{l}"),
        _ => String::new(),
    }
}
