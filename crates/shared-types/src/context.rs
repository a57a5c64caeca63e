//! The composed initial context (`agentctx context --json`, and what the
//! hooks inject).

use std::collections::BTreeMap;

#[cfg(feature = "schema")]
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::FileListPosition;

/// Which material a part is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(rename_all = "lowercase")]
pub enum ContextPartKind {
    /// The rules' system prompt extension.
    Rules,
    /// The AGENTS.md chain from the root to the working directory.
    Agents,
    /// The project's file list.
    Files,
    /// A base system prompt given by the caller, with the extension in it.
    System,
    /// The `<memory_index>` of the project's past captures.
    Memory,
}

impl ContextPartKind {
    /// The name used in JSON (`rules`, `agents`, `files`, `system`).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Rules => "rules",
            Self::Agents => "agents",
            Self::Files => "files",
            Self::System => "system",
            Self::Memory => "memory",
        }
    }
}

/// One composed part.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct ContextPart {
    /// Which material.
    pub kind: ContextPartKind,
    /// Its text.
    pub text: String,
}

/// The composed context: the system part, the user-message prefix, and what
/// went wrong on the way (each failing part is left out, never the whole).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct ComposedContext {
    /// Parts for the system prompt.
    pub system: Vec<ContextPart>,
    /// Parts for the start of the first user message.
    pub user_prefix: Vec<ContextPart>,
    /// What was left out, and why.
    pub warnings: Vec<String>,
    /// Tokens per part kind and `total`, when counted (`context --json`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tokens: Option<BTreeMap<String, u64>>,
}

impl ComposedContext {
    /// Every part, system first.
    pub fn parts(&self) -> impl Iterator<Item = &ContextPart> {
        self.system.iter().chain(&self.user_prefix)
    }

    /// All parts as one text (system first), one blank line between parts.
    pub fn text(&self) -> String {
        join_parts(self.parts())
    }

    /// Adds the file list to the system prompt or the user message.
    pub fn place_file_list(&mut self, position: FileListPosition, text: String) {
        let part = ContextPart {
            kind: ContextPartKind::Files,
            text,
        };
        match position {
            FileListPosition::SystemPrompt => self.system.push(part),
            FileListPosition::UserMessage => self.user_prefix.push(part),
        }
    }
}

/// The parts joined with one blank line between them, ending in a newline.
pub fn join_parts<'p>(parts: impl IntoIterator<Item = &'p ContextPart>) -> String {
    let texts: Vec<&str> = parts.into_iter().map(|p| p.text.trim_end()).collect();
    if texts.is_empty() {
        return String::new();
    }
    texts.join("\n\n") + "\n"
}

#[cfg(test)]
mod tests {
    use super::*;

    fn part(kind: ContextPartKind, text: &str) -> ContextPart {
        ContextPart {
            kind,
            text: text.to_owned(),
        }
    }

    #[test]
    fn parts_are_joined_by_one_blank_line_and_end_in_one_newline() {
        let parts = [
            part(ContextPartKind::Rules, "a\n\n"),
            part(ContextPartKind::Agents, "b"),
        ];
        assert_eq!(join_parts(&parts), "a\n\nb\n");
        assert_eq!(join_parts(&[]), "");
    }

    #[test]
    fn the_file_list_goes_where_the_config_says() {
        let mut composed = ComposedContext::default();
        composed.place_file_list(FileListPosition::UserMessage, "f".into());
        assert!(composed.system.is_empty() && composed.user_prefix.len() == 1);
        composed.place_file_list(FileListPosition::SystemPrompt, "g".into());
        assert_eq!(composed.text(), "g\n\nf\n");
    }

    #[test]
    fn kind_names_match_their_json() {
        for kind in [
            ContextPartKind::Rules,
            ContextPartKind::Agents,
            ContextPartKind::Files,
            ContextPartKind::System,
            ContextPartKind::Memory,
        ] {
            assert_eq!(
                serde_json::to_value(kind).ok(),
                Some(serde_json::Value::from(kind.as_str()))
            );
        }
    }
}
