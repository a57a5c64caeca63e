//! Tool entries: exact names, `server/*`, or `*`.

use crate::doc::Entry;

/// How an entry matches tool names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ToolPattern {
    /// `*`: every tool.
    Any,
    /// `server/*`: every tool of an MCP server (holds `server/`).
    Server(String),
    /// An exact, case-sensitive name.
    Exact(String),
    /// Something that can never match a tool name (`gh*`, `a b`, empty).
    Never,
}

impl ToolPattern {
    pub fn parse(entry: &str) -> Self {
        // `mcp__server__tool` (Claude Code's spelling) is `server/tool`;
        // `mcp__server__*` is `server/*`.
        let normalized = agentctx_types::normalize_tool_name(entry);
        let entry = normalized.as_str();
        if entry == "*" {
            return Self::Any;
        }
        if entry.is_empty() || entry.chars().any(char::is_whitespace) {
            return Self::Never;
        }
        if let Some(server) = entry.strip_suffix("/*") {
            if server.is_empty() || server.contains('*') || server.contains('/') {
                return Self::Never;
            }
            return Self::Server(format!("{server}/"));
        }
        if entry.contains('*') {
            return Self::Never;
        }
        Self::Exact(entry.to_owned())
    }

    pub fn matches(&self, tool: &str) -> bool {
        match self {
            Self::Any => true,
            Self::Server(prefix) => tool.starts_with(prefix.as_str()) && tool.len() > prefix.len(),
            Self::Exact(name) => name == tool,
            Self::Never => false,
        }
    }
}

/// A compiled tool list.
#[derive(Clone, Debug, Default)]
pub struct ToolList {
    patterns: Vec<(ToolPattern, Entry)>,
}

impl ToolList {
    pub fn new(entries: &[Entry]) -> Self {
        Self {
            patterns: entries
                .iter()
                .map(|e| (ToolPattern::parse(&e.text), e.clone()))
                .collect(),
        }
    }

    /// The first entry that matches `tool`.
    pub fn first_match(&self, tool: &str) -> Option<&Entry> {
        self.patterns
            .iter()
            .find(|(pattern, _)| pattern.matches(tool))
            .map(|(_, entry)| entry)
    }

    pub fn entries(&self) -> impl Iterator<Item = &Entry> {
        self.patterns.iter().map(|(_, e)| e)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_parse_to_what_they_can_match() {
        assert_eq!(ToolPattern::parse("*"), ToolPattern::Any);
        assert_eq!(
            ToolPattern::parse("github/*"),
            ToolPattern::Server("github/".into())
        );
        assert_eq!(
            ToolPattern::parse("mcp__github__*"),
            ToolPattern::Server("github/".into())
        );
        assert_eq!(
            ToolPattern::parse("mcp__github__push"),
            ToolPattern::Exact("github/push".into())
        );
        assert_eq!(
            ToolPattern::parse("Read"),
            ToolPattern::Exact("Read".into())
        );
        for never in ["gh*", "a b", "", "/*", "a/b/*", "*/*"] {
            assert_eq!(ToolPattern::parse(never), ToolPattern::Never, "{never:?}");
        }
    }

    #[test]
    fn a_server_entry_matches_its_tools_only_and_names_are_case_sensitive() {
        let server = ToolPattern::parse("github/*");
        assert!(server.matches("github/push_files"));
        assert!(!server.matches("github/"));
        assert!(!server.matches("githubx/push"));
        assert!(!ToolPattern::parse("Read").matches("read"));
    }

    #[test]
    fn the_first_entry_in_file_order_decides() {
        let entries = [
            Entry::new("github/*", Some(3)),
            Entry::new("github/push", Some(4)),
        ];
        let list = ToolList::new(&entries);
        assert_eq!(
            list.first_match("github/push").map(|e| e.line),
            Some(Some(3))
        );
        assert_eq!(list.first_match("Bash"), None);
    }
}
