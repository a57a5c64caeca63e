//! The initial context: the rules' prompt extension, the AGENTS.md chain
//! and the file list, composed for a working directory.
//!
//! Byte-stable: the same project gives the same text, so an agent's prompt
//! cache keeps it. Nothing in it depends on the clock.

use std::path::Path;

use agentctx_filelist::{FileListOptions, list_local};
use agentctx_types::FileListPosition;
use serde::Serialize;

use crate::Host;

/// Which material a part is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum PartKind {
    /// The rules' system prompt extension.
    Rules,
    /// The AGENTS.md chain from the root to the working directory.
    Agents,
    /// The project's file list.
    Files,
    /// A base system prompt given by the caller, with the extension in it.
    System,
}

/// One composed part.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Part {
    /// Which material.
    pub kind: PartKind,
    /// Its text.
    pub text: String,
}

/// The composed context: the system part, the user-message prefix, and what
/// went wrong on the way (each failing part is left out, never the whole).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Composed {
    /// Parts for the system prompt.
    pub system: Vec<Part>,
    /// Parts for the start of the first user message.
    pub user_prefix: Vec<Part>,
    /// What was left out, and why.
    pub warnings: Vec<String>,
}

/// Which parts to compose.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ComposeParts {
    /// The rules' prompt extension.
    pub rules: bool,
    /// The AGENTS.md chain (off where the agent loads it itself).
    pub agents: bool,
    /// The file list (when `file_list_context.enabled`).
    pub files: bool,
}

impl ComposeParts {
    /// Everything.
    pub const ALL: Self = Self {
        rules: true,
        agents: true,
        files: true,
    };
}

impl Composed {
    /// Every part, system first.
    pub fn parts(&self) -> impl Iterator<Item = &Part> {
        self.system.iter().chain(&self.user_prefix)
    }

    /// All parts as one text (system first), one blank line between parts.
    pub fn text(&self) -> String {
        join(self.parts())
    }
}

/// The parts joined with one blank line between them, ending in a newline.
pub fn join<'p>(parts: impl IntoIterator<Item = &'p Part>) -> String {
    let texts: Vec<&str> = parts.into_iter().map(|p| p.text.trim_end()).collect();
    if texts.is_empty() {
        return String::new();
    }
    texts.join("\n\n") + "\n"
}

/// Composes the chosen parts for `cwd`.
pub fn compose(host: &Host<'_>, cwd: &Path, which: ComposeParts) -> Composed {
    let mut composed = Composed::default();
    let rules = match host.rules(cwd) {
        Ok(rules) => {
            if let Some(error) = rules.error() {
                composed.warnings.push(format!("rule file: {error}"));
            }
            if which.rules
                && let Some(text) = rules
                    .prompt_extension()
                    .map(str::trim_end)
                    .filter(|t| !t.is_empty())
            {
                composed.system.push(Part {
                    kind: PartKind::Rules,
                    text: text.to_owned(),
                });
            }
            Some(rules)
        }
        Err(error) => {
            composed.warnings.push(format!("rules left out: {error}"));
            None
        }
    };
    if which.agents {
        match agentctx_core::start_session(cwd, &host.config.agents, host.home()) {
            Ok(started) => {
                composed
                    .warnings
                    .extend(started.chain.warnings.iter().map(ToString::to_string));
                let text = started.chain.render();
                if !text.is_empty() {
                    composed.system.push(Part {
                        kind: PartKind::Agents,
                        text,
                    });
                }
            }
            Err(error) => composed
                .warnings
                .push(format!("AGENTS.md left out: {error}")),
        }
    }
    let files_config = &host.config.file_list_context;
    if which.files && files_config.enabled {
        match file_list(host, cwd, rules.as_ref()) {
            Ok(text) => composed.place_file_list(files_config.position, text),
            Err(error) => composed
                .warnings
                .push(format!("file list left out: {error}")),
        }
    }
    composed
}

impl Composed {
    /// The file list, in the system prompt or the user message.
    pub(crate) fn place_file_list(&mut self, position: FileListPosition, text: String) {
        let part = Part {
            kind: PartKind::Files,
            text,
        };
        match position {
            FileListPosition::SystemPrompt => self.system.push(part),
            FileListPosition::UserMessage => self.user_prefix.push(part),
        }
    }
}

/// Why the file list was left out.
#[derive(Debug, thiserror::Error)]
enum FileListProblem {
    #[error(transparent)]
    Root(#[from] agentctx_core::CoreError),
    #[error(transparent)]
    List(#[from] agentctx_filelist::FileListError),
}

fn file_list(
    host: &Host<'_>,
    cwd: &Path,
    rules: Option<&agentctx_rules::Rules>,
) -> Result<String, FileListProblem> {
    let root = match rules {
        Some(rules) => rules.root().to_path_buf(),
        None => host.root(cwd)?.root,
    };
    let overrides = rules.map(|r| r.rule_set().file_list).unwrap_or_default();
    let options = FileListOptions {
        token_cache: crate::compose_remote::token_cache(host),
        ..FileListOptions::layered(&host.config.file_list_context, &overrides)
    };
    Ok(list_local(&root, &options)?.text)
}
