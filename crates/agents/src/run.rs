//! What an agent needs around it under `agentctx run` (the whole agent in
//! the sandbox): where it writes, which hosts it must reach, where its
//! model API and its credentials come from. Each agent's module answers
//! through `Dialect::run_needs`; docs/integrations/run.md has how each
//! was measured.

use std::path::PathBuf;

/// An agent's needs under `agentctx run`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RunNeeds {
    /// Folders and files outside the project it writes to work (its
    /// sessions, transcripts, logs, caches); the files in them that hold
    /// hooks, plugins and MCP servers stay read-only. Only those that
    /// exist are bound.
    pub writable: Vec<PathBuf>,
    /// Inside those, what stays read-only: the files that hold its
    /// settings, hooks and MCP servers, where they are not among the
    /// protected paths already.
    pub read_only: Vec<PathBuf>,
    /// Its folders in the project it writes to work, relative to the
    /// root (opencode's `.opencode`, where it installs its plugin package),
    /// each with what in it stays read-only.
    pub project: &'static [(&'static str, &'static [&'static str])],
    /// The hosts of its model API and of what it needs to start (sign-in,
    /// model lists), allowed through the proxy by default.
    pub hosts: &'static [&'static str],
    /// Variables that move its model API (`ANTHROPIC_BASE_URL`): the host
    /// and port of their URL are allowed too.
    pub base_url_vars: &'static [&'static str],
    /// Variables that hold its credentials: passed to the agent, left out
    /// of every command it runs through `agentctx exec`.
    pub key_vars: &'static [&'static str],
    /// More variables holding its credentials, named in its user config
    /// (a Codex provider's `env_key`): passed like `key_vars`.
    pub config_key_vars: Vec<String>,
}

impl RunNeeds {
    /// `writable` with the folders that exist (made where `make` says so:
    /// an agent's own folder it would create at its first start).
    pub fn existing(mut self) -> Self {
        self.writable.retain(|p| p.exists());
        self
    }
}
