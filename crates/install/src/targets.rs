//! Which files an install or uninstall concerns, per agent and scope, and
//! what each is (`FileKind`).

use std::path::PathBuf;

use agentctx_types::Agent;

use super::{InstallError, Parts, Places, Request};

/// Which of the agents' files a target is: what its text is and how it
/// is edited (never guessed from the parts a change removes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum FileKind {
    /// A Claude Code `settings.json` (hooks; the loader option).
    ClaudeSettings,
    /// A Codex `hooks.json`.
    CodexHooks,
    /// Codex's user `config.toml` (hook trust).
    CodexConfig,
    /// A project's `.codex/config.toml` (the permission profile).
    CodexProjectConfig,
    /// A project's `.mcp.json` (Claude Code's project MCP servers).
    McpJson,
    /// The user config where Gemini CLI, Copilot CLI, opencode or Qwen
    /// Code reads its MCP servers.
    McpServers(Agent),
    /// An agent's `settings.json` that holds its hooks and, for the user,
    /// its MCP servers (Gemini CLI's, Qwen Code's): edited by its module.
    Settings(SettingsFile),
    /// Copilot CLI's user `settings.json` (hooks).
    CopilotSettings,
    /// A project's `.github/hooks/agentctx.json`: agentctx's own.
    CopilotHooksFile,
    /// A file of agentctx's alone that an agent's module writes (a
    /// plugin, the shell it hands commands to).
    Owned(OwnedFile),
}

impl FileKind {
    /// A file agentctx writes whole: removed when nothing of it is left.
    pub(super) fn owned_whole(self) -> bool {
        matches!(self, Self::CopilotHooksFile | Self::Owned(_))
    }
}

/// An agent's settings file, its edits the agent module's.
#[derive(Clone, Copy)]
pub(super) struct SettingsFile {
    /// Whose settings.
    pub agent: Agent,
    /// Adds (or removes) `parts` in the file's text.
    pub edit: fn(
        text: Option<&str>,
        program: &str,
        parts: super::Parts,
        adding: bool,
    ) -> Result<String, super::SettingsError>,
    /// What of `parts` the file, as it is before install, already holds
    /// as the user's own (uninstall must not take it out).
    pub users_own: fn(before: Option<&str>, parts: super::Parts) -> super::Parts,
}

impl PartialEq for SettingsFile {
    fn eq(&self, other: &Self) -> bool {
        self.agent == other.agent
    }
}

impl Eq for SettingsFile {}

impl std::fmt::Debug for SettingsFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}'s settings", self.agent)
    }
}

/// A file agentctx writes whole for an agent, its text the agent module's:
/// a file of its name that is not agentctx's is never overwritten, and an
/// uninstall leaves it alone.
#[derive(Clone, Copy)]
pub(super) struct OwnedFile {
    /// What the file is, in a sentence's words ("the opencode plugin").
    pub what: &'static str,
    /// Whether a file's text is agentctx's (its first lines say so).
    pub is_ours: fn(&str) -> bool,
    /// Its text for the agentctx program `program`, written at `path`;
    /// empty when uninstalling.
    pub text: fn(program: &str, path: &std::path::Path, adding: bool) -> String,
}

impl PartialEq for OwnedFile {
    fn eq(&self, other: &Self) -> bool {
        self.what == other.what
    }
}

impl Eq for OwnedFile {}

impl std::fmt::Debug for OwnedFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.what)
    }
}

/// One file install or uninstall concerns.
pub(super) struct Target {
    pub path: PathBuf,
    pub kind: FileKind,
    pub parts: Parts,
}

/// The settings files `request` concerns, with the parts each gets. An
/// uninstall also looks at Claude Code's user settings for the loader
/// option, which it takes out only when its record says install set it,
/// and at Codex's user config for the trust of agentctx's hooks, which it
/// takes out whoever recorded it (install or Codex's TUI).
pub(super) fn targets(
    request: &Request,
    places: &Places,
    adding: bool,
) -> Result<Vec<Target>, InstallError> {
    let mut targets = Vec::new();
    super::agent::of(request.agent).targets(request, places, adding, &mut targets)?;
    // Two parts in one file (a user install with the plugin option) are one change.
    let mut merged: Vec<Target> = Vec::new();
    for t in targets {
        match merged.iter_mut().find(|m| m.path == t.path) {
            Some(existing) => existing.parts = existing.parts.with(t.parts),
            None => merged.push(t),
        }
    }
    Ok(merged)
}
