//! One module per command; each takes the invocation and writes its output.

pub mod agents;
pub mod config;
pub mod context;
pub mod exec;
pub mod files;
pub mod hook;
pub mod install;
pub mod mcp;
pub mod mem;
#[cfg(feature = "postgres")]
pub mod memshared;
pub mod memstore;
pub mod rules;
pub mod run;
pub mod schema;
#[cfg(feature = "viewer")]
pub mod serve;
pub mod text;

use std::io::Write;
use std::path::PathBuf;

use agentctx_config::{Environment, LoadedConfig};

/// Everything a command may use: the working directory (absolute), the
/// environment, the effective config and the output mode.
pub struct Invocation {
    /// Empty when the process's directory no longer exists (only `hook`
    /// and `mem capture` run then).
    pub cwd: PathBuf,
    pub env: Environment,
    pub config: LoadedConfig,
    /// `--config FILE` (resolved) and `--set` flags, for a hook to load
    /// its session's config again from the project root.
    pub config_file: Option<PathBuf>,
    pub sets: Vec<String>,
    /// This program, by absolute path (shell commands are wrapped with it).
    pub program: Option<PathBuf>,
    pub json: bool,
    /// `--quiet`: nothing but errors on stderr.
    pub quiet: bool,
}

impl Invocation {
    /// A note for the person at the terminal on stderr (an empty answer
    /// said in words), unless `--quiet`; stdout keeps only the answer.
    pub fn note(&self, text: &str) {
        if !self.quiet {
            let mut stderr = std::io::stderr().lock();
            let _ = writeln!(stderr, "{text}");
        }
    }

    /// What the library calls need of this invocation.
    pub fn host(&self) -> agentctx_session::Host<'_> {
        agentctx_session::Host {
            config_source: agentctx_session::ConfigSource::Files {
                config_file: self.config_file.as_deref(),
                sets: &self.sets,
            },
            program: self.program.as_deref(),
            ..agentctx_session::Host::new(&self.config.config, &self.env, self.cwd_if_exists())
        }
    }

    /// The working directory, when it exists.
    pub fn cwd_if_exists(&self) -> Option<&std::path::Path> {
        Some(self.cwd.as_path()).filter(|d| d.is_dir())
    }
}

/// The project root for `cwd`, from the `agents.root` config and `$HOME`.
pub fn project_root(
    inv: &Invocation,
    cwd: &std::path::Path,
) -> Result<agentctx_types::RootInfo, agentctx_core::CoreError> {
    inv.host().root(cwd)
}

/// The repository `--github` or `--gitlab` names (`--api-url` for another
/// host), if either is given.
pub fn remote_repo(
    github: Option<&str>,
    gitlab: Option<&str>,
    api_url: Option<&str>,
) -> Option<agentctx_filelist::RemoteRepo> {
    use agentctx_filelist::{Platform, RemoteRepo};
    match (github, gitlab) {
        (Some(spec), _) => Some(RemoteRepo::parse(Platform::GitHub, spec, api_url)),
        (_, Some(spec)) => Some(RemoteRepo::parse(Platform::GitLab, spec, api_url)),
        _ => None,
    }
}

/// How a command that ran without error ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// Exit 0.
    Success,
    /// Exit 1: a denial, a failed check.
    #[allow(
        dead_code,
        reason = "returned by the checking commands of later issues"
    )]
    Negative,
    /// Exit with a program's own status (`exec`).
    Status(u8),
}

/// Writes `value` as one pretty JSON document followed by a newline.
pub fn write_json<T: serde::Serialize + ?Sized>(
    out: &mut dyn Write,
    value: &T,
) -> anyhow::Result<()> {
    serde_json::to_writer_pretty(&mut *out, value)?;
    out.write_all(b"\n")?;
    Ok(())
}
