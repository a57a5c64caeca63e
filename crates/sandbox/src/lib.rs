//! Shell commands of a coding agent under a kernel sandbox built from the
//! project's rules: every file and folder an `exclude` pattern matches
//! (and every file an `include` list leaves out) is unreadable, and every
//! protected file and folder (the rule file, agentctx's config and state,
//! the agents' hook settings) is read-only, whatever program the command
//! runs and however it spells the path. The kernel decides, not a reading
//! of the command line.
//!
//! On Linux the sandbox is bubblewrap (`bwrap`): a mount namespace in
//! which the whole file system is bound read-only but the writable
//! folders ([`Protection::writable`]; none: writable as it is), excluded folders are
//! covered by an empty folder nobody may open, excluded files by an empty
//! file nobody may open, protected paths are bound read-only, and every
//! folder between a writable root and a mask or protected path is bound
//! onto itself (a mount point cannot be renamed, so no command moves a
//! mask away with its folder), `/proc/sys` read-only; a PID
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
//! let protection = Protection { names: vec![".claude".into()], ..Protection::default() };
//! let plan = Plan::build(&rules, &protection, Some(state), "session-1")?;
//! let status = bwrap
//!     .command(&plan, state, std::path::Path::new("/repo"), "bash", &["-c", "cat README.md"])?
//!     .status()?;
//! # Ok(())
//! # }
//! ```
#![deny(missing_docs)]

mod env;
mod init;
mod layers;
mod scan;
mod seccomp;

use std::path::{Path, PathBuf};
use std::process::Command;

use agentctx_rules::Rules;
use sha2::{Digest as _, Sha256};

pub use agentctx_network::Relay;
pub use env::{EnvPatternError, SecretEnv};
pub use init::{InitError, InitPlan, SOCKET_NAME, enter};
pub use scan::{Mounts, Protection, Walk};

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
        for path in &protection.writable {
            hasher.update(b"\0w");
            hasher.update(path.as_os_str().as_encoded_bytes());
        }
        let digest: String = hasher
            .finalize()
            .iter()
            .take(12)
            .map(|b| format!("{b:02x}"))
            .collect();
        let cache = state.map(|s| s.join(format!("walk-{digest}.json")));
        let mut protection = protection.clone();
        if rustix::process::geteuid().is_root() {
            protection.paths.extend(system_folders());
        }
        let (mounts, from_cache) = scan::mounts(rules, &protection, cache.as_deref(), &digest)?;
        Ok(Self { mounts, from_cache })
    }
}

/// What root may not change in the sandbox besides the protected paths:
/// the system's programs, libraries and configuration. With every
/// capability dropped root is still the owner of these files, and a
/// program replaced there (`bwrap`, the agent's shell, `/etc/ld.so.preload`)
/// runs outside the sandbox next time. Other users cannot write them.
fn system_folders() -> Vec<PathBuf> {
    [
        "/usr",
        "/etc",
        "/boot",
        "/bin",
        "/sbin",
        "/lib",
        "/lib32",
        "/lib64",
        "/libx32",
        "/var/spool/cron",
    ]
    .into_iter()
    .map(PathBuf::from)
    // `/bin` is a link to `/usr/bin` on merged systems: covered by `/usr`.
    .filter(|p| std::fs::symlink_metadata(p).is_ok_and(|m| m.is_dir()))
    .collect()
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
        use std::os::unix::fs::OpenOptionsExt as _;
        // Without waiting: a FIFO among them would block a plain open.
        let nonblocking = i32::try_from(rustix::fs::OFlags::NONBLOCK.bits()).unwrap_or(0);
        for file in &self.mounts.hidden_files {
            let opened = std::fs::OpenOptions::new()
                .read(true)
                .custom_flags(nonblocking)
                .open(file);
            if opened.is_ok() {
                return Err(file.clone());
            }
        }
        for dir in &self.mounts.hidden_dirs {
            if std::fs::read_dir(dir).is_ok_and(|mut entries| entries.next().is_some()) {
                return Err(dir.clone());
            }
        }
        for path in self
            .mounts
            .read_only
            .iter()
            .chain(&self.mounts.read_only_outside)
        {
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
    /// `agentctx-sandbox-init`, when it is there: it makes the masks
    /// inside the sandbox, faster than bubblewrap ([`enter`]).
    pub init: Option<PathBuf>,
}

impl Bwrap {
    /// `bwrap` in `/usr/bin` or `/usr/local/bin`, else on `PATH`: the
    /// system's first, so a `bwrap` a command could leave in a folder of
    /// the user's `PATH` is never the one that builds the next sandbox.
    pub fn find() -> Option<Self> {
        let on_path = std::env::var_os("PATH")
            .into_iter()
            .flat_map(|p| std::env::split_paths(&p).collect::<Vec<_>>());
        [PathBuf::from("/usr/bin"), PathBuf::from("/usr/local/bin")]
            .into_iter()
            .chain(on_path.filter(|dir| dir.is_absolute()))
            .map(|dir| dir.join("bwrap"))
            .find(|p| p.is_file())
            .map(|path| Self { path, init: None })
    }

    /// The same bubblewrap, with `init` making the masks when it is a file.
    #[must_use]
    pub fn with_init(self, init: Option<PathBuf>) -> Self {
        Self {
            init: init.filter(|p| p.is_file()),
            ..self
        }
    }

    /// This bubblewrap as it can make a sandbox here: tried once (a
    /// sandbox that runs `true`, with every capability handed to the first
    /// program when there is one; a bubblewrap installed set-user-ID refuses
    /// that to users, and then makes the masks itself) and the answer kept
    /// in `state` for this program and kernel.
    ///
    /// # Errors
    /// [`SandboxError::Unusable`] with what bubblewrap said.
    pub fn probe(&self, state: &Path) -> Result<Self, SandboxError> {
        let with_init = |works: bool| Self {
            init: self.init.clone().filter(|_| works),
            ..self.clone()
        };
        if inside_a_sandbox() {
            // Another sandbox may forbid namespaces: ask, and keep nothing.
            self.try_once(&["--cap-drop", "ALL"])?;
            return Ok(with_init(
                self.init.is_some() && self.try_once(&["--as-pid-1", "--cap-add", "ALL"]).is_ok(),
            ));
        }
        let kernel = std::fs::read_to_string("/proc/sys/kernel/osrelease").unwrap_or_default();
        let stamp = std::fs::metadata(&self.path)
            .and_then(|m| m.modified())
            .map(|t| format!("{t:?}"))
            .unwrap_or_default();
        let key = format!("{}|{stamp}|{}|pid1", self.path.display(), kernel.trim());
        let kept = state.join("probe");
        let known = std::fs::read_to_string(&kept).ok();
        // `init`: capabilities can be handed on; `no-init`: they cannot;
        // `plain`: not asked yet (by a caller without a first program).
        let answer = known.as_deref().and_then(|k| k.strip_prefix(key.as_str()));
        match answer {
            Some("|init") => return Ok(with_init(true)),
            Some("|no-init") => return Ok(with_init(false)),
            Some("|plain") if self.init.is_none() => return Ok(with_init(false)),
            // Works without capabilities; only the hand-on is not known.
            Some("|plain") => {}
            _ => self.try_once(&["--cap-drop", "ALL"])?,
        }
        let outcome = match &self.init {
            None => "plain",
            Some(_) if self.try_once(&["--as-pid-1", "--cap-add", "ALL"]).is_ok() => "init",
            Some(_) => "no-init",
        };
        let _ = std::fs::create_dir_all(state);
        let _ = std::fs::write(&kept, format!("{key}|{outcome}"));
        Ok(with_init(outcome == "init"))
    }

    /// Makes a sandbox that runs `true`.
    fn try_once(&self, caps: &[&str]) -> Result<(), SandboxError> {
        let output = Command::new(&self.path)
            .args(BASE_ARGS)
            .args(["--dev", "/dev"])
            .args(caps)
            .args(["--", "true"])
            .stdin(std::process::Stdio::null())
            .output()
            .map_err(|source| SandboxError::Unusable {
                message: source.to_string(),
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
    ) -> Result<SandboxCommand, SandboxError> {
        self.command_with(plan, state, cwd, program, args, &Extras::default())
    }

    /// [`Bwrap::command`] with a network namespace and folders bound over
    /// others ([`Extras`]).
    ///
    /// # Errors
    /// The mask file cannot be made; a network namespace is asked for and
    /// no first program can run its relay.
    pub fn command_with(
        &self,
        plan: &Plan,
        state: &Path,
        cwd: &Path,
        program: &str,
        args: &[&str],
        extras: &Extras,
    ) -> Result<SandboxCommand, SandboxError> {
        let denied = denied_file(state)?;
        let writable = &plan.mounts.writable;
        let mut command = Command::new(&self.path);
        if writable.is_empty() || self.init.is_some() {
            command.args(BASE_ARGS);
        } else {
            // Everything read-only (submounts too), then the writable
            // folders bound over it.
            command.args(["--ro-bind", "/", "/"]).args(&BASE_ARGS[3..]);
        }
        // Root owns the disks' device files: it gets a fresh `/dev` of the
        // harmless ones (from the first program when there is one). Another
        // user's `/dev` gives nothing its permissions do not already.
        let root = rustix::process::geteuid().is_root();
        if root && self.init.is_none() {
            command.args(["--dev", "/dev"]);
        } else {
            command.args(["--dev-bind", "/dev", "/dev"]);
        }
        // A terminal is shared with the agent: a new session keeps a
        // sandboxed program from pushing input into it (TIOCSTI), unless
        // the command is interactive and needs the terminal itself.
        if !std::io::IsTerminal::is_terminal(&std::io::stdin()) {
            command.arg("--new-session");
        }
        // No input pushed into a terminal (an interactive agent's, which
        // runs it after the sandbox ends), no shared key store.
        let seccomp = seccomp_fd().map_err(|source| SandboxError::Io {
            path: PathBuf::from("memfd:agentctx-seccomp"),
            source,
        })?;
        command
            .arg("--seccomp")
            .arg(std::os::fd::AsRawFd::as_raw_fd(&seccomp).to_string());
        // Only loopback: every connection goes through the relay to the
        // proxy outside, which judges it.
        if extras.relay.is_some() {
            command.arg("--unshare-net");
        }
        let mut read_only = plan.mounts.read_only.clone();
        // The bubblewrap that builds the next sandbox and the first program
        // in it, where this user may replace them (found on `PATH` in a
        // folder of theirs).
        for own in std::iter::once(&self.path).chain(&self.init) {
            let covered = read_only.iter().any(|p| own.starts_with(p))
                || !(writable.is_empty() || writable.iter().any(|w| own.starts_with(w)));
            if !covered && rustix::fs::access(own, rustix::fs::Access::WRITE_OK).is_ok() {
                read_only.push(own.clone());
            }
        }
        // The kernel's settings: bubblewrap's `/proc` leaves `/proc/sys`
        // writable to root (it takes a folder root cannot `access` for
        // writing as read-only already), and root without capabilities may
        // still write every sysctl root owns (`kernel.core_pattern` runs a
        // program outside any sandbox).
        for kernel in ["/proc/sys", "/proc/sysrq-trigger", "/proc/irq", "/proc/bus"] {
            if Path::new(kernel).exists() {
                read_only.push(PathBuf::from(kernel));
            }
        }
        if let Some(init) = &self.init {
            // Every capability inside the namespaces, for the first program
            // only: it makes the masks and drops them all.
            let plan = InitPlan {
                writable: writable.clone(),
                pinned: plan.mounts.pinned.clone(),
                read_only,
                writable_again: plan.mounts.writable_again.clone(),
                hidden_dirs: plan.mounts.hidden_dirs.clone(),
                hidden_files: plan.mounts.hidden_files.clone(),
                denied,
                cwd: cwd.to_path_buf(),
                fresh_dev: root,
                bind_over: extras.bind_over.clone(),
                relay: extras.relay.clone(),
                net_socket: extras.net_socket.clone(),
                no_masks: false,
                program: program.into(),
                args: args.iter().map(Into::into).collect(),
            };
            // The first program is process 1: bubblewrap's own reaper
            // would keep a folder from before the masks, readable by
            // every process of the sandbox as `/proc/1/cwd`.
            command
                .args(["--as-pid-1", "--cap-add", "ALL", "--"])
                .arg(init)
                .args(plan.to_args());
            return Ok(SandboxCommand {
                command,
                seccomp: Some(seccomp),
            });
        }
        command.args(["--cap-drop", "ALL"]);
        for path in writable {
            command.arg("--bind").arg(path).arg(path);
        }
        // Parents first: folders that hold masks and protected paths (mount
        // points, which no command can rename away), protected paths, and
        // folders writable again inside them. bubblewrap binds from the
        // tree as it is outside, so a folder writable there is writable
        // again here.
        for (path, bind) in
            layers::in_mount_order(&plan.mounts.pinned, &read_only, &plan.mounts.writable_again)
        {
            let flag = match bind {
                layers::Bind::Pin | layers::Bind::WritableAgain => "--bind",
                layers::Bind::ReadOnly => "--ro-bind",
            };
            command.arg(flag).arg(path).arg(path);
        }
        // Masks after the read-only binds: an excluded path inside a
        // protected folder stays unreadable.
        for dir in &plan.mounts.hidden_dirs {
            command.args(["--perms", "0000", "--tmpfs"]).arg(dir);
        }
        for file in &plan.mounts.hidden_files {
            command.arg("--ro-bind").arg(&denied).arg(file);
        }
        for (source, target) in &extras.bind_over {
            command.arg("--bind").arg(source).arg(target);
        }
        if let Some((source, base)) = &extras.net_socket {
            command
                .args(["--perms", "0700", "--tmpfs"])
                .arg(base)
                .arg("--bind")
                .arg(source)
                .arg(base.join(init::SOCKET_NAME));
        }
        command.arg("--chdir").arg(cwd).arg("--");
        match &extras.relay {
            None => {
                command.arg(program).args(args);
            }
            // Without the first program nothing relays: the namespace has
            // only loopback and nothing reaches the proxy (closed, not
            // open).
            Some(_) if !extras.init_program.as_ref().is_some_and(|p| p.is_file()) => {
                command.arg(program).args(args);
            }
            // The relay runs in the first program without capabilities
            // (bubblewrap made the masks).
            Some(relay) => {
                let Some(first) = extras.init_program.as_ref() else {
                    return Err(SandboxError::Unusable {
                        message: "no first program to relay the network".to_owned(),
                    });
                };
                let relay_only = InitPlan {
                    denied,
                    cwd: cwd.to_path_buf(),
                    relay: Some(relay.clone()),
                    no_masks: true,
                    program: program.into(),
                    args: args.iter().map(Into::into).collect(),
                    ..InitPlan::default()
                };
                command.arg(first).args(relay_only.to_args());
            }
        }
        Ok(SandboxCommand {
            command,
            seccomp: Some(seccomp),
        })
    }
}

/// What a sandbox has besides its plan's mounts.
#[derive(Clone, Debug, Default)]
pub struct Extras {
    /// A network namespace with only loopback, and this relay in it to the
    /// proxy outside (none: the machine's network).
    pub relay: Option<agentctx_network::Relay>,
    /// Folders bound writable over others (source, target), last.
    pub bind_over: Vec<(PathBuf, PathBuf)>,
    /// The proxy's socket and the folder of every proxy's socket, covered
    /// in the sandbox by one holding only this socket (as `proxy.sock`):
    /// the relay's `socket` is that path.
    pub net_socket: Option<(PathBuf, PathBuf)>,
    /// `agentctx-sandbox-init`, which runs the relay where bubblewrap makes
    /// the masks itself.
    pub init_program: Option<PathBuf>,
}

/// What every sandbox is: the file system as it is, a PID namespace with
/// its own `/proc` (the `/proc/<pid>/root` of a process outside would be
/// the tree without masks), gone with its parent. Every capability is
/// dropped: by bubblewrap, or by the first program once the masks are made.
const BASE_ARGS: [&str; 7] = [
    "--bind",
    "/",
    "/",
    "--proc",
    "/proc",
    "--unshare-pid",
    "--die-with-parent",
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

/// Marks every file descriptor above standard error close-on-exec, so that
/// none reaches the sandbox: a folder or file opened outside it (by the
/// agent, or whoever started this process) would be a way around every
/// mask through `/proc/self/fd`. Call it before starting the sandbox, with
/// what the sandbox command must hand to bubblewrap
/// ([`SandboxCommand::handed_fds`]).
pub fn keep_only_stdio(handed: &[std::os::fd::RawFd]) {
    close_fds::set_fds_cloexec_threadsafe(3, handed);
}

/// The bubblewrap command of a sandbox, and what it hands bubblewrap (the
/// system call filter, read once by bubblewrap before the command runs).
#[derive(Debug)]
pub struct SandboxCommand {
    command: Command,
    seccomp: Option<std::os::fd::OwnedFd>,
}

impl SandboxCommand {
    /// The command, and the file bubblewrap must inherit (kept open until
    /// the command has started).
    pub fn into_parts(self) -> (Command, Option<std::os::fd::OwnedFd>) {
        (self.command, self.seccomp)
    }

    /// The file descriptors bubblewrap must inherit.
    pub fn handed_fds(&self) -> Vec<std::os::fd::RawFd> {
        self.seccomp
            .iter()
            .map(std::os::fd::AsRawFd::as_raw_fd)
            .collect()
    }
}

impl std::ops::Deref for SandboxCommand {
    type Target = Command;
    fn deref(&self) -> &Command {
        &self.command
    }
}

impl std::ops::DerefMut for SandboxCommand {
    fn deref_mut(&mut self) -> &mut Command {
        &mut self.command
    }
}

/// The filter of [`seccomp::filter`] in a memory file bubblewrap inherits
/// (not close-on-exec), read from its start.
fn seccomp_fd() -> std::io::Result<std::os::fd::OwnedFd> {
    use rustix::fs::{MemfdFlags, SeekFrom, memfd_create, seek};
    let fd = memfd_create("agentctx-seccomp", MemfdFlags::ALLOW_SEALING)?;
    let program = seccomp::filter();
    let mut written = 0;
    while written < program.len() {
        written += rustix::io::write(&fd, &program[written..])?;
    }
    seek(&fd, SeekFrom::Start(0))?;
    Ok(fd)
}
