//! Shell commands of a coding agent under a kernel sandbox built from the
//! project's rules: every file and folder an `exclude` pattern matches
//! (and every file an `include` list leaves out) is unreadable, and every
//! protected file and folder (the rule file, agentctx's config and state,
//! the agents' hook settings) is read-only, whatever program the command
//! runs and however it spells the path. The kernel decides, not a reading
//! of the command line.
//!
//! On Linux the sandbox is bubblewrap (`bwrap`): a mount namespace in
//! which the whole file system is bound as it is, excluded folders are
//! covered by an empty folder nobody may open, excluded files by an empty
//! file nobody may open, protected paths are bound read-only; a PID
//! namespace with its own `/proc` (so `/proc/<pid>/root` of a process
//! outside cannot reach the real tree), every capability dropped (root
//! included), and the sandbox dies with its parent. A path is masked
//! where it is, so symlinks, `..`, globs, hard links made inside
//! (`EXDEV`) and every program reach the same masks. docs/SECURITY.md says
//! what this covers and what it does not (git objects, files created by
//! the command itself, paths outside the project other than `~/` excludes).
//!
//! ```no_run
//! use agentctx_sandbox::{Bwrap, Plan, Protection};
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! # let rules: agentctx_rules::Rules = unimplemented!();
//! let bwrap = Bwrap::find().ok_or("no bwrap")?;
//! let state = std::path::Path::new("/home/me/.local/state/agentctx/sandbox");
//! bwrap.probe(state)?;
//! let protection = Protection { names: vec![".claude".into()], paths: vec![] };
//! let plan = Plan::build(&rules, &protection, Some(state), "session-1")?;
//! let status = bwrap
//!     .command(&plan, state, std::path::Path::new("/repo"), "bash", &["-c", "cat README.md"])?
//!     .status()?;
//! # Ok(())
//! # }
//! ```
#![deny(missing_docs)]

mod scan;

use std::path::{Path, PathBuf};
use std::process::Command;

use agentctx_rules::Rules;
use sha2::{Digest as _, Sha256};

pub use scan::{Mounts, Protection};

/// Why a command cannot run sandboxed.
#[derive(Debug, thiserror::Error)]
pub enum SandboxError {
    /// bubblewrap is not installed.
    #[error("bubblewrap (bwrap) is not installed (Debian: apt-get install bubblewrap)")]
    NoBwrap,
    /// bubblewrap is there but cannot make namespaces here (a container
    /// without user namespaces, a kernel that forbids them).
    #[error("bubblewrap cannot make a sandbox here: {message}")]
    Unusable {
        /// What it said.
        message: String,
    },
    /// A folder of the project cannot be read.
    #[error("cannot walk {}: {source}", .path.display())]
    Walk {
        /// The folder.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// The project is too large to find every excluded path in it.
    #[error("{} has more than {entries} entries: its excluded paths cannot all be found", .root.display())]
    TooLarge {
        /// The root.
        root: PathBuf,
        /// The limit.
        entries: usize,
    },
    /// The rules name more paths than a sandbox can mask.
    #[error("{} needs {mounts} masks, more than a sandbox makes (8,192)", .root.display())]
    TooManyMounts {
        /// The root.
        root: PathBuf,
        /// How many.
        mounts: usize,
    },
    /// A file the sandbox needs cannot be made.
    #[error("{}: {source}", .path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
}

/// What one sandbox masks and protects.
#[derive(Clone, Debug)]
pub struct Plan {
    /// The mounts.
    pub mounts: Mounts,
    /// Whether a kept walk was used (no folder changed since).
    pub from_cache: bool,
}

impl Plan {
    /// The plan for the project of `rules`: every excluded path found by
    /// walking it (and `~/` excludes in the home folder), and the
    /// protected ones. `state`, when given, keeps the walk for the next
    /// command (used while no folder of the project changed); `key` names
    /// what else the walk depends on (the session, whose rules are fixed).
    ///
    /// # Errors
    /// A folder that cannot be walked, a project too large to walk, more
    /// masks than a sandbox makes.
    pub fn build(
        rules: &Rules,
        protection: &Protection,
        state: Option<&Path>,
        key: &str,
    ) -> Result<Self, SandboxError> {
        let mut hasher = Sha256::new();
        hasher.update(rules.root().as_os_str().as_encoded_bytes());
        hasher.update(b"\0");
        hasher.update(key.as_bytes());
        for name in &protection.names {
            hasher.update(b"\0n");
            hasher.update(name.as_bytes());
        }
        for path in &protection.paths {
            hasher.update(b"\0p");
            hasher.update(path.as_os_str().as_encoded_bytes());
        }
        let digest: String = hasher
            .finalize()
            .iter()
            .take(12)
            .map(|b| format!("{b:02x}"))
            .collect();
        let cache = state.map(|s| s.join(format!("walk-{digest}.json")));
        let (mounts, from_cache) = scan::mounts(rules, protection, cache.as_deref(), &digest)?;
        Ok(Self { mounts, from_cache })
    }
}

impl Plan {
    /// Whether the sandbox this process already runs in (another agent's:
    /// Codex's own, Claude Code's) refuses everything the plan masks: every
    /// hidden file and folder cannot be opened, every read-only path
    /// cannot be written. `Err` names the first that is not refused. What
    /// is checked is what the kernel answers here, not a guess about the
    /// outer sandbox.
    ///
    /// # Errors
    /// The first path the plan hides or protects that this process can
    /// reach.
    pub fn enforced_here(&self) -> Result<(), PathBuf> {
        use rustix::fs::{Access, access};
        for file in &self.mounts.hidden_files {
            if std::fs::File::open(file).is_ok() {
                return Err(file.clone());
            }
        }
        for dir in &self.mounts.hidden_dirs {
            if std::fs::read_dir(dir).is_ok_and(|mut entries| entries.next().is_some()) {
                return Err(dir.clone());
            }
        }
        for path in &self.mounts.read_only {
            if access(path.as_path(), Access::WRITE_OK).is_ok() {
                return Err(path.clone());
            }
        }
        Ok(())
    }
}

/// Whether this process runs under a seccomp filter (mode 2 in
/// `/proc/self/status`): inside another sandbox, where a nested one may
/// not be allowed.
pub fn inside_a_sandbox() -> bool {
    std::fs::read_to_string("/proc/self/status").is_ok_and(|status| {
        status
            .lines()
            .any(|l| l.starts_with("Seccomp:") && l.split_whitespace().nth(1) == Some("2"))
    })
}

/// The bubblewrap program.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Bwrap {
    /// Its path.
    pub path: PathBuf,
}

impl Bwrap {
    /// `bwrap` on `PATH`, else in `/usr/bin` or `/usr/local/bin`.
    pub fn find() -> Option<Self> {
        let on_path = std::env::var_os("PATH")
            .into_iter()
            .flat_map(|p| std::env::split_paths(&p).collect::<Vec<_>>());
        on_path
            .chain([PathBuf::from("/usr/bin"), PathBuf::from("/usr/local/bin")])
            .map(|dir| dir.join("bwrap"))
            .find(|p| p.is_file())
            .map(|path| Self { path })
    }

    /// Whether this bubblewrap can make a sandbox here: tried once (a
    /// sandbox that runs `true`) and the answer kept in `state` for this
    /// program and kernel.
    ///
    /// # Errors
    /// [`SandboxError::Unusable`] with what bubblewrap said.
    pub fn probe(&self, state: &Path) -> Result<(), SandboxError> {
        if inside_a_sandbox() {
            // Another sandbox may forbid namespaces: ask, and keep nothing.
            return self.try_once();
        }
        let kernel = std::fs::read_to_string("/proc/sys/kernel/osrelease").unwrap_or_default();
        let stamp = std::fs::metadata(&self.path)
            .and_then(|m| m.modified())
            .map(|t| format!("{t:?}"))
            .unwrap_or_default();
        let key = format!("{}|{stamp}|{}", self.path.display(), kernel.trim());
        let kept = state.join("probe");
        if std::fs::read_to_string(&kept).is_ok_and(|k| k == key) {
            return Ok(());
        }
        self.try_once()?;
        let _ = std::fs::create_dir_all(state);
        let _ = std::fs::write(&kept, key);
        Ok(())
    }

    /// Makes a sandbox that runs `true`.
    fn try_once(&self) -> Result<(), SandboxError> {
        let output = Command::new(&self.path)
            .args(BASE_ARGS)
            .args(["--", "true"])
            .stdin(std::process::Stdio::null())
            .output()
            .map_err(|e| SandboxError::Unusable {
                message: e.to_string(),
            })?;
        if output.status.success() {
            Ok(())
        } else {
            Err(SandboxError::Unusable {
                message: String::from_utf8_lossy(&output.stderr).trim().to_owned(),
            })
        }
    }

    /// The command that runs `program args` in `cwd` under `plan`.
    /// `state` holds the empty file masks are made of.
    ///
    /// # Errors
    /// The mask file cannot be made.
    pub fn command(
        &self,
        plan: &Plan,
        state: &Path,
        cwd: &Path,
        program: &str,
        args: &[&str],
    ) -> Result<Command, SandboxError> {
        let denied = denied_file(state)?;
        let mut command = Command::new(&self.path);
        command.args(BASE_ARGS);
        // A terminal is shared with the agent: a new session keeps a
        // sandboxed program from pushing input into it (TIOCSTI), unless
        // the command is interactive and needs the terminal itself.
        if !std::io::IsTerminal::is_terminal(&std::io::stdin()) {
            command.arg("--new-session");
        }
        for path in &plan.mounts.read_only {
            command.arg("--ro-bind").arg(path).arg(path);
        }
        // Masks after the read-only binds: an excluded path inside a
        // protected folder stays unreadable.
        for dir in &plan.mounts.hidden_dirs {
            command.args(["--perms", "0000", "--tmpfs"]).arg(dir);
        }
        for file in &plan.mounts.hidden_files {
            command.arg("--ro-bind").arg(&denied).arg(file);
        }
        command
            .arg("--chdir")
            .arg(cwd)
            .arg("--")
            .arg(program)
            .args(args);
        Ok(command)
    }
}

/// What every sandbox is: the file system as it is, a PID namespace with
/// its own `/proc`, a fresh `/dev`, no capability, gone with its parent.
const BASE_ARGS: [&str; 11] = [
    "--bind",
    "/",
    "/",
    "--dev",
    "/dev",
    "--proc",
    "/proc",
    "--unshare-pid",
    "--die-with-parent",
    "--cap-drop",
    "ALL",
];

/// An empty file nobody may open (mode 0), made once in `state`.
fn denied_file(state: &Path) -> Result<PathBuf, SandboxError> {
    use std::os::unix::fs::PermissionsExt as _;
    let path = state.join("denied");
    let io = |source| SandboxError::Io {
        path: path.clone(),
        source,
    };
    match std::fs::symlink_metadata(&path) {
        Ok(meta) if meta.is_file() && meta.len() == 0 && meta.permissions().mode() & 0o777 == 0 => {
            return Ok(path);
        }
        _ => {}
    }
    std::fs::create_dir_all(state).map_err(io)?;
    let temp = tempfile::NamedTempFile::new_in(state).map_err(io)?;
    std::fs::set_permissions(temp.path(), std::fs::Permissions::from_mode(0o000)).map_err(io)?;
    temp.persist(&path).map_err(|e| io(e.error))?;
    Ok(path)
}
