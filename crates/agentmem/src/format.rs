//! The UOCS Markdown file: its name and its content.

use std::fmt::Write as _;

/// Everything a capture file says.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CaptureDoc {
    pub category: String,
    pub agent_type: String,
    pub executor: String,
    pub completion: String,
    pub output: String,
    pub transcript_path: String,
    /// Local time with the zone's abbreviation (or numeric offset).
    pub timestamp: String,
    pub description: Option<String>,
    pub subagent_type: Option<String>,
    pub call_id: Option<String>,
    pub session_id: Option<String>,
    pub source: String,
    pub cwd: Option<String>,
    /// The project the cwd belongs to (none when the cwd is gone).
    pub identity: Option<agentctx_types::ProjectIdentity>,
    pub redactions: usize,
}

/// A YAML double-quoted scalar: any text round-trips through a YAML parser.
pub fn yaml_quote(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c.is_control() || c == '\u{feff}' || c == '\u{2028}' || c == '\u{2029}' => {
                let _ = write!(out, "\\u{:04x}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

impl CaptureDoc {
    pub fn render(&self) -> String {
        let mut fm = String::from("---\n");
        let mut field = |key: &str, value: &str| {
            let _ = writeln!(fm, "{key}: {}", yaml_quote(value));
        };
        field("capture_type", &self.category);
        field("timestamp", &self.timestamp);
        field("executor", &self.executor);
        field("agent_completion", &self.completion);
        field("transcript_path", &self.transcript_path);
        for (key, value) in [
            ("description", &self.description),
            ("subagent_type", &self.subagent_type),
            ("call_id", &self.call_id),
            ("session_id", &self.session_id),
            ("cwd", &self.cwd),
        ] {
            if let Some(value) = value {
                field(key, value);
            }
        }
        if let Some(identity) = &self.identity {
            for (key, value) in [
                ("repository", &identity.remote),
                ("root_commit", &identity.root_commit),
                ("project_name", &identity.name),
                ("package", &identity.package),
            ] {
                if !value.is_empty() {
                    field(key, value);
                }
            }
            field("project_top", &identity.top.to_string_lossy());
        }
        field("source", &self.source);
        field("redactions", &self.redactions.to_string());
        fm.push_str("---\n\n");
        let _ = write!(
            fm,
            "# {}: {}\n\n**Agent:** {}\n**Completed:** {}\n\n---\n\n## Agent Output\n\n{}\n\n---\n\n## Metadata\n\n**Transcript:** `{}`\n**Captured:** {}\n",
            self.category,
            self.completion,
            self.agent_type,
            self.timestamp,
            self.output.trim_end(),
            self.transcript_path,
            self.timestamp,
        );
        if self.redactions > 0 {
            let _ = writeln!(fm, "**Redactions:** {}", self.redactions);
        }
        fm
    }
}

/// The completion message in kebab-case, at most 60 characters (cut on a
/// character boundary): letters and digits of every script are kept, all
/// else becomes `-`. Empty when nothing is left.
pub fn kebab(text: &str) -> String {
    let mut out = String::new();
    let mut dash = false;
    for c in text.chars() {
        if c.is_alphanumeric() {
            if dash && !out.is_empty() {
                out.push('-');
            }
            dash = false;
            out.extend(c.to_lowercase());
        } else {
            dash = true;
        }
    }
    let cut: String = out.chars().take(60).collect();
    cut.trim_end_matches('-').to_owned()
}

/// The longest prefix of `text` that fits in `max` bytes, cut on a
/// character boundary.
pub fn cut_bytes(text: &str, max: usize) -> &str {
    if text.len() <= max {
        return text;
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

/// `[A-Za-z0-9_-]` only, for the agent type in a file name.
pub fn safe_name(text: &str) -> String {
    let cleaned: String = text
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '-'
            }
        })
        .collect();
    let cleaned = cleaned.trim_matches('-').to_owned();
    if cleaned.is_empty() {
        "unknown".to_owned()
    } else {
        cleaned
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cut_bytes_never_splits_a_character() {
        assert_eq!(cut_bytes("認証フロー", 7), "認証");
        assert_eq!(cut_bytes("認証フロー", 6), "認証");
        assert_eq!(cut_bytes("abc", 10), "abc");
        assert_eq!(cut_bytes("認", 2), "");
    }

    #[test]
    fn kebab_keeps_every_script_and_cuts_on_characters() {
        assert_eq!(
            kebab("Fixed the auth race: token refresh!"),
            "fixed-the-auth-race-token-refresh"
        );
        assert_eq!(kebab("認証フローを調査"), "認証フローを調査");
        assert_eq!(kebab("Ünïcode ÉTÉ"), "ünïcode-été");
        assert_eq!(kebab("!!!"), "");
        assert_eq!(kebab(&"日本".repeat(40)).chars().count(), 60);
    }

    #[test]
    fn quoting_escapes_what_yaml_needs() {
        assert_eq!(yaml_quote("a: b \"c\"\n\\"), "\"a: b \\\"c\\\"\\n\\\\\"");
    }
}
