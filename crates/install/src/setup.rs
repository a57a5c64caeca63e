//! What an install works out from the machine before planning: where the
//! agents keep their settings, which program the hooks name, the agent's
//! version, and what the user should know afterwards.

use std::path::{Path, PathBuf};

use agentctx_config::Environment;
use agentctx_types::Agent;

use super::{InstallError, Places, Request, Scope};

/// Why the running agentctx cannot be named in hook commands.
#[derive(Debug, thiserror::Error)]
pub enum ProgramError {
    /// The binary was deleted or replaced since it started.
    #[error("the running agentctx ({}) no longer exists on disk (rebuilt or removed since it started): run `agentctx install` from the binary the hooks should run, or name it with --program PATH (cargo install --locked --path crates/cli puts one in ~/.cargo/bin)", .0.display())]
    Gone(PathBuf),
    /// Its path cannot be resolved.
    #[error("cannot resolve the path of the running agentctx ({}): {source}", .path.display())]
    Unresolved {
        /// The path as the system gave it.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// It lives in a temporary folder that will not outlive the session.
    #[error("the running agentctx is in a temporary folder ({}), which may be emptied before the agent's next session, and the hooks run it at every session: name the agentctx they should run with --program PATH (an absolute path outside the temporary folder, or `agentctx` to find it on the agent's PATH), or install agentctx outside it (cargo install --locked --path crates/cli puts it in ~/.cargo/bin) and run `agentctx install` from there; --dry-run shows the changes with this path", .0.display())]
    Temporary(PathBuf),
    /// Its path cannot be written into a settings file.
    #[error("the path of agentctx is not UTF-8: {}", .0.display())]
    NotUtf8(PathBuf),
    /// The system does not say which binary is running.
    #[error("cannot find the running agentctx: {0}")]
    Unknown(#[source] std::io::Error),
}

impl ProgramError {
    /// The running binary's path, when it is known but cannot be relied
    /// on (gone, temporary): a dry run shows its changes with it.
    pub fn unreliable_program(&self) -> Option<&Path> {
        match self {
            Self::Gone(path) | Self::Temporary(path) => Some(path),
            Self::Unresolved { .. } | Self::NotUtf8(_) | Self::Unknown(_) => None,
        }
    }
}

/// The program to write into hook commands: the running agentctx binary,
/// by its absolute, resolved path. Refused when that path cannot be relied
/// on (the binary was deleted or replaced since it started, or it lives in
/// a temporary folder that will not outlive the session).
pub fn hook_program(current_exe: &Path, temp_dir: &Path) -> Result<String, ProgramError> {
    let text = current_exe.to_string_lossy();
    if text.ends_with(" (deleted)") || !current_exe.is_file() {
        return Err(ProgramError::Gone(current_exe.to_path_buf()));
    }
    let resolved =
        std::fs::canonicalize(current_exe).map_err(|source| ProgramError::Unresolved {
            path: current_exe.to_path_buf(),
            source,
        })?;
    let temp = std::fs::canonicalize(temp_dir).unwrap_or_else(|_| temp_dir.to_path_buf());
    if resolved.starts_with(&temp) {
        return Err(ProgramError::Temporary(resolved));
    }
    resolved
        .to_str()
        .map(str::to_owned)
        .ok_or(ProgramError::NotUtf8(resolved))
}

impl Scope {
    /// The program an install or uninstall in this scope names, unless
    /// one is given: a shared file names `agentctx` by PATH (teammates have
    /// it elsewhere; the PreToolUse guard still blocks when it is missing),
    /// an uninstall needs no program, else the running binary
    /// ([`hook_program`]).
    pub fn program(self, given: Option<&str>, adding: bool) -> Result<String, ProgramError> {
        match (given, self) {
            (Some(program), _) => Ok(program.to_owned()),
            (None, Scope::Shared) => Ok("agentctx".to_owned()),
            (None, _) if !adding => Ok("agentctx".to_owned()),
            (None, _) => {
                let exe = std::env::current_exe().map_err(ProgramError::Unknown)?;
                hook_program(&exe, &std::env::temp_dir())
            }
        }
    }
}

impl Places {
    /// The places of this machine for a project at `root`: Claude Code's
    /// user settings (`$CLAUDE_CONFIG_DIR`), Codex's home (`$CODEX_HOME`,
    /// else `~/.codex`), and install's records under the state directory.
    ///
    /// # Errors
    /// [`InstallError::Unplaced`] without `$XDG_STATE_HOME` or `$HOME`.
    pub fn from_env(env: &Environment, root: PathBuf) -> Result<Self, InstallError> {
        let home = env.home();
        let state = agentctx_config::state_dir(env).ok_or_else(|| {
            InstallError::Unplaced(
                "install needs $XDG_STATE_HOME or $HOME to keep its record of what it changed"
                    .to_owned(),
            )
        })?;
        Ok(Self {
            root,
            claude_user_settings: agentctx_agents::claude_user_settings(env),
            codex_home: env.codex_home(),
            mcp_configs: super::mcp::McpConfigs::from_env(env),
            home,
            manifests: state.join("installs"),
        })
    }
}

/// The installed agent's version, from `claude --version` or
/// `codex --version` on PATH; `None` when it does not tell.
pub fn installed_agent_version(agent: Agent) -> Option<(u32, u32, u32)> {
    if !super::agent::of(agent).version_matters() {
        return None;
    }
    let program = agent.as_str();
    let output = std::process::Command::new(program)
        .arg("--version")
        .stdin(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .output()
        .ok()?;
    agentctx_agents::parse_version(&String::from_utf8_lossy(&output.stdout))
}

/// What the user needs to know after installing, if anything: where the
/// agent reads the file (for Claude Code, by the release `install` found),
/// and for Codex, the trust it asks for.
pub fn advice(request: &Request) -> Option<String> {
    super::agent::of(request.agent).advice(request)
}

pub(super) fn mcp_note(request: &Request, note: &'static str) -> &'static str {
    if request.mcp { note } else { "" }
}

pub(super) fn version_text(version: Option<(u32, u32, u32)>) -> String {
    version.map_or_else(String::new, |(a, b, c)| format!("{a}.{b}.{c}"))
}
