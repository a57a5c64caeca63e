//! What a hook may read besides its payload: the config, the environment
//! and the process's working directory.

use std::path::{Path, PathBuf};

use agentctx_config::Environment;
use agentctx_rules::{DefaultRulesError, Rules};
use agentctx_types::{Config, RootInfo, SessionAnchor};

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
    /// Where `config` came from, so a hook can take its session's config
    /// from the project root alone.
    pub config_source: ConfigSource<'a>,
    /// The agentctx program that runs this hook, by absolute path: shell
    /// commands are wrapped with it (`agentctx exec`). `None` for a library
    /// caller that is not the CLI: commands are not sandboxed.
    pub program: Option<&'a Path>,
    /// The session's anchor, once [`handle`](crate::handle) has it: its
    /// config is `config`, and rules come from its root and captured rule
    /// file, whatever directory a call names.
    pub anchor: Option<&'a SessionAnchor>,
}

/// Where a host's config came from.
#[derive(Clone, Copy, Debug, Default)]
pub enum ConfigSource<'a> {
    /// Given as it is (a library caller, a test): a session uses it.
    #[default]
    Given,
    /// Loaded from the files (the CLI): a session loads it again, from the
    /// user's file, its project root's `.agentctx.yaml` (no other), the
    /// environment and these flags.
    Files {
        /// `--config FILE`, resolved.
        config_file: Option<&'a Path>,
        /// `--set KEY=VALUE`, in order.
        sets: &'a [String],
    },
}

impl<'a> Host<'a> {
    /// A host without config flags or anchor.
    pub fn new(config: &'a Config, env: &'a Environment, process_cwd: Option<&'a Path>) -> Self {
        Self {
            config,
            env,
            process_cwd,
            config_source: ConfigSource::Given,
            program: None,
            anchor: None,
        }
    }
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

/// Why a session's state file cannot be placed.
#[derive(Debug, thiserror::Error)]
pub enum SessionPlaceError {
    /// A session id was given, and there is no state folder to keep it in.
    #[error("--session-id needs $XDG_STATE_HOME or $HOME to place the session file")]
    NoStateDir,
    /// The id cannot name a file.
    #[error(transparent)]
    Id(#[from] agentctx_core::CoreError),
}

impl Host<'_> {
    /// The state of the session named by a state file (`file`, relative
    /// to `cwd`) or by an id (under [`Host::sessions_dir`]); `None` when
    /// neither is given (the caller then works without a session).
    pub fn session_store(
        &self,
        cwd: &Path,
        file: Option<&Path>,
        id: Option<&str>,
    ) -> Result<Option<agentctx_core::SessionStore>, SessionPlaceError> {
        if let Some(file) = file {
            return Ok(Some(agentctx_core::SessionStore::at(cwd.join(file))));
        }
        let Some(id) = id else { return Ok(None) };
        let dir = self.sessions_dir().ok_or(SessionPlaceError::NoStateDir)?;
        Ok(Some(agentctx_core::SessionStore::for_id(&dir, id)?))
    }

    /// `$HOME`, when absolute.
    pub fn home(&self) -> Option<PathBuf> {
        self.env.home()
    }

    /// The project root for `cwd`.
    pub fn root(&self, cwd: &Path) -> Result<RootInfo, agentctx_core::CoreError> {
        let options = agentctx_core::RootOptions::from_config(&self.config.agents, self.home());
        agentctx_core::find_root(cwd, &options)
    }

    /// The rules of the project `cwd` is in: with an anchor, the session's
    /// (its root and the rule file as it was at its start), whatever `cwd` is.
    pub fn rules(&self, cwd: &Path) -> Result<Rules, RulesError> {
        if let Some(anchor) = self.anchor {
            return Ok(Rules::from_capture(
                &anchor.root,
                &self.config.project_agent_rules,
                &anchor.rule_file,
            )?
            .with_home(self.home()));
        }
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

    /// The state folder and the name of `input`'s agent in it
    /// (`<session>` or `<session>+<agent>`, its state file's stem), for the
    /// files kept beside its state (the recall index, the user-message
    /// marker); `None` without a session id or a state folder, or for ids
    /// the session state refuses.
    pub fn session_files(&self, input: &agentctx_types::HookInput) -> Option<(PathBuf, String)> {
        let dir = self.sessions_dir()?;
        let agent = input.agent_id.as_deref().filter(|a| !a.is_empty());
        let store =
            agentctx_core::SessionStore::for_agent(&dir, input.session_id.as_deref()?, agent)
                .ok()?;
        let stem = store.path().file_stem()?.to_str()?.to_owned();
        Some((dir, stem))
    }
}
