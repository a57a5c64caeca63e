//! Reading a capture file back: its frontmatter and its output.

use std::collections::BTreeMap;
use std::path::Path;

use agentctx_types::CaptureRecord;

/// Why a capture file is skipped by the index.
#[derive(Debug, thiserror::Error)]
pub enum ParseError {
    /// The file cannot be read (or is not UTF-8).
    #[error("cannot read it: {0}")]
    Read(#[from] std::io::Error),
    /// The file does not start with `---`.
    #[error("no YAML frontmatter (the file does not start with ---)")]
    NoFrontmatter,
    /// The frontmatter has no closing `---`.
    #[error("the frontmatter is not closed by ---")]
    Unclosed,
    /// The frontmatter is not YAML. The parser's message (with its line
    /// and column, without its snippet) is kept; its error type is not, so
    /// that no YAML type appears in a public API (docs/ARCHITECTURE.md).
    #[error("frontmatter: {message}")]
    Yaml {
        /// The parser's message.
        message: String,
    },
}

/// What the index keeps of a capture file: its record, and the output
/// that search reads.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParsedCapture {
    pub record: CaptureRecord,
    pub body: String,
}

fn scalar(value: &serde_json::Value) -> String {
    match value {
        serde_json::Value::String(s) => s.clone(),
        serde_json::Value::Null => String::new(),
        other => other.to_string(),
    }
}

/// Parses a capture written by agentctx, by an older tool or by hand: YAML
/// frontmatter (any scalar values) and, when present, the `## Agent Output`
/// section as the searchable body. `Err` says why the file is skipped.
pub fn parse_capture(path: &Path) -> Result<ParsedCapture, ParseError> {
    let text = std::fs::read_to_string(path)?;
    let (front, body) = split_frontmatter(&text)?;
    let fields: BTreeMap<String, serde_json::Value> =
        serde_saphyr::from_str(front).map_err(|e| ParseError::Yaml {
            message: e.without_snippet().to_string(),
        })?;
    let field = |key: &str| fields.get(key).map(scalar).unwrap_or_default();
    let name = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let output = match body.split_once("## Agent Output\n") {
        Some((_, after)) => after.split("\n---\n\n## Metadata").next().unwrap_or(after),
        None => body,
    };
    let category = match field("capture_type") {
        c if c.is_empty() => name.split('_').nth(2).unwrap_or("RESEARCH").to_owned(),
        c => c,
    };
    let record = CaptureRecord {
        time: time_of(&name, &field("timestamp")),
        category: category.to_ascii_uppercase(),
        agent: field("executor"),
        source: field("source"),
        session: field("session_id"),
        project: field("cwd"),
        completion: field("agent_completion"),
        description: field("description"),
        path: path.to_path_buf(),
        id: name,
        identity: agentctx_types::ProjectIdentity {
            remote: field("repository"),
            root_commit: field("root_commit"),
            name: field("project_name"),
            // Written before identities: the cwd stands for the folder.
            top: std::path::PathBuf::from(match field("project_top") {
                top if top.is_empty() => field("cwd"),
                top => top,
            }),
            package: field("package"),
        },
    };
    Ok(ParsedCapture {
        record,
        body: output.trim().to_owned(),
    })
}

/// A capture's YAML frontmatter and the Markdown after it.
fn split_frontmatter(text: &str) -> Result<(&str, &str), ParseError> {
    let rest = text
        .strip_prefix("---\n")
        .ok_or(ParseError::NoFrontmatter)?;
    rest.split_once("\n---\n").ok_or(ParseError::Unclosed)
}

/// The Markdown of a capture, without its frontmatter (all of `text` when
/// it has none): what a reader is shown.
pub fn capture_markdown(text: &str) -> &str {
    split_frontmatter(text).map_or(text, |(_, body)| body)
}

/// `YYYY-MM-DD HH:MM:SS` from the file name (`2026-01-25-091200_...`), else
/// the frontmatter timestamp's first 19 characters.
fn time_of(name: &str, timestamp: &str) -> String {
    let b = name.as_bytes();
    let digits =
        |r: std::ops::Range<usize>| b.get(r).is_some_and(|s| s.iter().all(u8::is_ascii_digit));
    if b.len() >= 17 && digits(0..4) && digits(5..7) && digits(8..10) && digits(11..17) {
        return format!(
            "{} {}:{}:{}",
            &name[..10],
            &name[11..13],
            &name[13..15],
            &name[15..17]
        );
    }
    timestamp.chars().take(19).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_reason_a_file_is_skipped_is_its_own_error() {
        let dir = tempfile::tempdir().unwrap();
        let write = |name: &str, text: &str| {
            let path = dir.path().join(name);
            std::fs::write(&path, text).unwrap();
            path
        };
        assert!(matches!(
            parse_capture(&dir.path().join("missing.md")),
            Err(ParseError::Read(_))
        ));
        assert!(matches!(
            parse_capture(&write("a.md", "no frontmatter\n")),
            Err(ParseError::NoFrontmatter)
        ));
        assert!(matches!(
            parse_capture(&write("b.md", "---\nx: 1\n")),
            Err(ParseError::Unclosed)
        ));
        let yaml = parse_capture(&write("c.md", "---\nx: [unclosed\n---\nbody\n")).unwrap_err();
        assert!(
            matches!(&yaml, ParseError::Yaml { message } if message.contains("line")),
            "the parser's position is kept: {yaml:?}"
        );
    }
}
