//! Reading a capture file back: its frontmatter and its output.

use std::collections::BTreeMap;
use std::path::Path;

/// What the index keeps of a capture file.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ParsedCapture {
    pub name: String,
    pub category: String,
    pub agent: String,
    pub source: String,
    pub session: String,
    pub project: String,
    pub time: String,
    pub completion: String,
    pub description: String,
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
pub fn parse_capture(path: &Path) -> Result<ParsedCapture, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read it: {e}"))?;
    let rest = text
        .strip_prefix("---\n")
        .ok_or("no YAML frontmatter (the file does not start with ---)")?;
    let (front, body) = rest
        .split_once("\n---\n")
        .ok_or("the frontmatter is not closed by ---")?;
    let fields: BTreeMap<String, serde_json::Value> = serde_saphyr::from_str(front)
        .map_err(|e| format!("frontmatter: {}", e.without_snippet()))?;
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
    Ok(ParsedCapture {
        time: time_of(&name, &field("timestamp")),
        category: category.to_ascii_uppercase(),
        agent: field("executor"),
        source: field("source"),
        session: field("session_id"),
        project: field("cwd"),
        completion: field("agent_completion"),
        description: field("description"),
        body: output.trim().to_owned(),
        name,
    })
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
