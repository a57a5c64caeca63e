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
