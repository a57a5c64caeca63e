//! What a hook may read besides its payload: the config, the environment
//! and the process's working directory.

use std::path::{Path, PathBuf};

use agentctx_config::Environment;
use agentctx_rules::{DefaultRulesError, Rules};
use agentctx_types::{Config, RootInfo};

/// The invocation a hook runs in.
#[derive(Clone, Copy, Debug)]
pub struct Host<'a> {
    /// The effective config.
    pub config: &'a Config,
    /// The process environment.
    pub env: &'a Environment,
    /// The process's working directory, when it still exists (an agent may
    /// start a hook from a directory that was deleted since).
    pub process_cwd: Option<&'a Path>,
}

/// Why the project's rules could not be loaded for a directory.
#[derive(Debug, thiserror::Error)]
pub enum RulesError {
    /// No project root could be found for the directory.
    #[error("no project root for {}", .cwd.display())]
    Root {
        /// The directory.
        cwd: PathBuf,
        /// Why.
        #[source]
        source: agentctx_core::CoreError,
    },
    /// The config's `default_rules` are invalid.
    #[error(transparent)]
    DefaultRules(#[from] DefaultRulesError),
}

impl Host<'_> {
    /// `$HOME`, when absolute.
    pub fn home(&self) -> Option<PathBuf> {
        self.env.home()
    }

    /// The project root for `cwd`.
    pub fn root(&self, cwd: &Path) -> Result<RootInfo, agentctx_core::CoreError> {
        let options = agentctx_core::RootOptions::from_config(&self.config.agents, self.home());
        agentctx_core::find_root(cwd, &options)
    }

    /// The rules of the project `cwd` is in.
    pub fn rules(&self, cwd: &Path) -> Result<Rules, RulesError> {
        let root = self.root(cwd).map_err(|source| RulesError::Root {
            cwd: cwd.to_path_buf(),
            source,
        })?;
        Ok(Rules::load(&root.root, &self.config.project_agent_rules)?.with_home(self.home()))
    }

    /// Codex's home: `$CODEX_HOME` when absolute, else `~/.codex`.
    pub fn codex_home(&self) -> Option<PathBuf> {
        self.env.codex_home()
    }

    /// Where session state files live.
    pub fn sessions_dir(&self) -> Option<PathBuf> {
        agentctx_config::state_dir(self.env).map(|dir| dir.join("sessions"))
    }
}
