//! The first program in the sandbox (`agentctx-sandbox-init`): bubblewrap
//! makes the namespaces, `/proc` and `/dev`, and starts this program as
//! the PID namespace's process 1 (`--as-pid-1`) with every capability
//! inside them; it makes the plan's masks and read-only binds itself,
//! drops every capability, moves into the command's folder, starts the
//! command and reaps what is left until the command ends.
//!
//! Why process 1 and not bubblewrap's own reaper: every process in the
//! sandbox can follow `/proc/<pid>/cwd` and `/proc/<pid>/root` of every
//! other. bubblewrap's reaper entered the command's folder before the
//! masks were made, on the bind beneath them, so `/proc/1/cwd/secrets/key`
//! read what the masks cover. Here no process of the sandbox holds a
//! folder, a root or a file from before the masks.
//!
//! Why not bubblewrap's own `--ro-bind`: bubblewrap reads the whole mount
//! table again after each bind (about 0.25 ms per mask on our machine, and
//! more the more mounts the system has); here a bind is two system calls
//! and the table is read once. docs/BENCHMARKS.md has the figures.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use rustix::fs::StatVfsMountFlags;
use rustix::mount::{MountFlags, mount, mount_bind, mount_bind_recursive, mount_remount};
use rustix::thread::{CapabilitySet, CapabilitySets};

use crate::layers::{self, Bind, Layer, Layers};

/// Why the sandbox could not be entered; the command has not run.
#[derive(Debug, thiserror::Error)]
pub enum InitError {
    /// The arguments are not a plan.
    #[error("bad arguments: {0}")]
    Usage(String),
    /// Not started as process 1 of a fresh PID namespace.
    #[error("runs only as the first program in agentctx's sandbox (agentctx exec starts it)")]
    NotFirst,
    /// A mount failed.
    #[error("cannot {what} {}: {source}", .path.display())]
    Mount {
        /// What was being done.
        what: &'static str,
        /// Where.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// A capability could not be dropped.
    #[error("cannot drop the sandbox's capabilities: {0}")]
    Capabilities(#[source] std::io::Error),
    /// The command's folder cannot be entered (it may be masked).
    #[error("cannot enter {}: {source}", .path.display())]
    Chdir {
        /// The folder.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// The network namespace's relay cannot listen.
    #[error("cannot start the network relay: {0}")]
    Relay(#[source] std::io::Error),
    /// The command cannot be started.
    #[error("cannot run {}: {source}", .program.display())]
    Exec {
        /// The program.
        program: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
}

/// What the first program does, as its arguments carry it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct InitPlan {
    /// Folders left writable; with any, every other mount is made
    /// read-only (`/proc` and `/dev` aside).
    pub writable: Vec<PathBuf>,
    /// Bound onto themselves as they are (writable), before the read-only
    /// binds and masks: mount points cannot be renamed, so the folders of
    /// masked and protected paths stay where the masks are.
    pub pinned: Vec<PathBuf>,
    /// Bound read-only onto themselves (with what is mounted below them).
    pub read_only: Vec<PathBuf>,
    /// Folders inside a read-only path bound writable again (a cache in a
    /// read-only home), after it and before what is read-only inside them.
    pub writable_again: Vec<PathBuf>,
    /// Covered by an empty folder nobody may open.
    pub hidden_dirs: Vec<PathBuf>,
    /// Covered by `denied`.
    pub hidden_files: Vec<PathBuf>,
    /// An empty file nobody may open.
    pub denied: PathBuf,
    /// The folder the command runs in (entered after the masks, so a
    /// masked folder is not reachable as the working directory).
    pub cwd: PathBuf,
    /// `/dev` replaced by a fresh one holding only the harmless devices:
    /// for root, who owns the disks' device files (bubblewrap's `--dev`
    /// does the same, a millisecond slower).
    pub fresh_dev: bool,
    /// Folders bound writable over others (source, target), after every
    /// other mount: under `agentctx run`, the run's own state folder over
    /// agentctx's, so what the hooks inside write stays in the run.
    pub bind_over: Vec<(PathBuf, PathBuf)>,
    /// The relay of the network namespace, listening before the command
    /// starts.
    pub relay: Option<agentctx_network::Relay>,
    /// The proxy's socket (source) and the folder of every proxy's
    /// socket (base): the base is covered by an empty folder holding only
    /// this sandbox's socket, as `base/proxy.sock`, so no sandbox reaches
    /// another's proxy (and its allow list).
    pub net_socket: Option<(PathBuf, PathBuf)>,
    /// Only the relay and the command: bubblewrap made the masks (it could
    /// not hand this program capabilities).
    pub no_masks: bool,
    /// The command.
    pub program: OsString,
    /// Its arguments.
    pub args: Vec<OsString>,
}

impl InitPlan {
    /// The plan as arguments of `agentctx-sandbox-init`.
    pub fn to_args(&self) -> Vec<OsString> {
        let mut out = Vec::new();
        let mut flag = |name: &str, path: &Path| {
            out.push(OsString::from(name));
            out.push(path.as_os_str().to_owned());
        };
        for path in &self.writable {
            flag("--rw", path);
        }
        for path in &self.pinned {
            flag("--pin", path);
        }
        for path in &self.read_only {
            flag("--ro", path);
        }
        for path in &self.writable_again {
            flag("--rw-again", path);
        }
        for path in &self.hidden_dirs {
            flag("--hide-dir", path);
        }
        for path in &self.hidden_files {
            flag("--hide-file", path);
        }
        flag("--denied", &self.denied);
        flag("--chdir", &self.cwd);
        for (source, target) in &self.bind_over {
            out.push("--bind-over".into());
            out.push(source.as_os_str().to_owned());
            out.push(target.as_os_str().to_owned());
        }
        if self.fresh_dev {
            out.push("--fresh-dev".into());
        }
        if self.no_masks {
            out.push("--no-masks".into());
        }
        if let Some((source, base)) = &self.net_socket {
            out.push("--net-socket".into());
            out.push(source.as_os_str().to_owned());
            out.push(base.as_os_str().to_owned());
        }
        if let Some(relay) = &self.relay {
            out.push("--relay-socket".into());
            out.push(relay.socket.as_os_str().to_owned());
            out.push("--relay-port".into());
            out.push(relay.proxy_port.to_string().into());
            for port in &relay.forwards {
                out.push("--relay-forward".into());
                out.push(port.to_string().into());
            }
        }
        out.push("--".into());
        out.push(self.program.clone());
        out.extend(self.args.iter().cloned());
        out
    }

    /// The plan from the arguments [`to_args`](Self::to_args) made.
    ///
    /// # Errors
    /// [`InitError::Usage`] naming what is wrong.
    pub fn from_args(args: impl IntoIterator<Item = OsString>) -> Result<Self, InitError> {
        let mut plan = Self::default();
        let mut args = args.into_iter();
        let (mut denied, mut cwd) = (None, None);
        loop {
            let Some(flag) = args.next() else {
                return Err(InitError::Usage("no `--` before the command".to_owned()));
            };
            if flag == "--" {
                break;
            }
            if flag == "--fresh-dev" {
                plan.fresh_dev = true;
                continue;
            }
            if flag == "--no-masks" {
                plan.no_masks = true;
                continue;
            }
            if flag == "--relay-port" || flag == "--relay-forward" {
                let port = args
                    .next()
                    .and_then(|p| p.to_str().and_then(|p| p.parse::<u16>().ok()))
                    .filter(|p| *p > 0)
                    .ok_or_else(|| {
                        InitError::Usage(format!("{} needs a port", flag.to_string_lossy()))
                    })?;
                let relay = plan.relay.get_or_insert_with(|| agentctx_network::Relay {
                    socket: PathBuf::new(),
                    proxy_port: 0,
                    forwards: Vec::new(),
                });
                if flag == "--relay-port" {
                    relay.proxy_port = port;
                } else {
                    relay.forwards.push(port);
                }
                continue;
            }
            let value = args
                .next()
                .map(PathBuf::from)
                .filter(|p| p.is_absolute())
                .ok_or_else(|| {
                    InitError::Usage(format!("{} needs an absolute path", flag.to_string_lossy()))
                })?;
            match flag.to_str() {
                Some("--rw") => plan.writable.push(value),
                Some("--pin") => plan.pinned.push(value),
                Some("--ro") => plan.read_only.push(value),
                Some("--rw-again") => plan.writable_again.push(value),
                Some("--hide-dir") => plan.hidden_dirs.push(value),
                Some("--hide-file") => plan.hidden_files.push(value),
                Some("--denied") => denied = Some(value),
                Some("--net-socket") => {
                    let base = args
                        .next()
                        .map(PathBuf::from)
                        .filter(|p| p.is_absolute())
                        .ok_or_else(|| {
                            InitError::Usage("--net-socket needs two absolute paths".to_owned())
                        })?;
                    plan.net_socket = Some((value, base));
                }
                Some("--bind-over") => {
                    let target = args
                        .next()
                        .map(PathBuf::from)
                        .filter(|p| p.is_absolute())
                        .ok_or_else(|| {
                            InitError::Usage("--bind-over needs two absolute paths".to_owned())
                        })?;
                    plan.bind_over.push((value, target));
                }
                Some("--relay-socket") => {
                    plan.relay
                        .get_or_insert_with(|| agentctx_network::Relay {
                            socket: PathBuf::new(),
                            proxy_port: 0,
                            forwards: Vec::new(),
                        })
                        .socket = value;
                }
                Some("--chdir") => cwd = Some(value),
                _ => {
                    return Err(InitError::Usage(format!(
                        "unknown flag {}",
                        flag.to_string_lossy()
                    )));
                }
            }
        }
        plan.denied = denied.ok_or_else(|| InitError::Usage("no --denied".to_owned()))?;
        plan.cwd = cwd.ok_or_else(|| InitError::Usage("no --chdir".to_owned()))?;
        plan.program = args
            .next()
            .ok_or_else(|| InitError::Usage("no command".to_owned()))?;
        plan.args = args.collect();
        if let Some(relay) = &plan.relay
            && (relay.proxy_port == 0 || relay.socket.as_os_str().is_empty())
        {
            return Err(InitError::Usage(
                "a relay needs --relay-socket and --relay-port".to_owned(),
            ));
        }
        Ok(plan)
    }
}

/// Makes the masks, drops every capability, enters the folder, runs the
/// command and reaps every process left to it until the command ends.
/// Returns the command's status as a shell gives it (its exit code, or
/// 128 + the signal that ended it).
///
/// # Errors
/// The first step that failed; the command has not run.
pub fn enter(plan: &InitPlan) -> Result<i32, InitError> {
    // Only as process 1 of a fresh PID namespace (bubblewrap's
    // `--as-pid-1`): run by hand on the machine, the masks would change the
    // machine's mounts. A mount namespace of its own would not do: process
    // 1 would keep the tree without masks, readable through
    // `/proc/1/root` and `/proc/1/cwd`.
    if !plan.no_masks {
        if rustix::process::getpid().as_raw_nonzero().get() != 1 {
            return Err(InitError::NotFirst);
        }
        make_masks(plan)?;
        drop_capabilities()?;
    }
    // Entered after the masks, so this process's folder, which every
    // process in the sandbox can follow through `/proc/1/cwd`, is the one
    // the masks lie on.
    std::env::set_current_dir(&plan.cwd).map_err(|source| InitError::Chdir {
        path: plan.cwd.clone(),
        source,
    })?;
    // The relay's ports listen before the command looks for them; its
    // threads end with this process, and the namespace with them.
    if let Some(relay) = &plan.relay {
        relay.start().map_err(InitError::Relay)?;
    }
    let child = std::process::Command::new(&plan.program)
        .args(&plan.args)
        .spawn()
        .map_err(|source| InitError::Exec {
            program: PathBuf::from(&plan.program),
            source,
        })?;
    Ok(reap_until(child.id()))
}

/// Waits for every child (orphans are re-parented to process 1) until
/// `main` ends; its status as a shell gives it. When process 1 exits the
/// kernel ends the rest of the sandbox.
fn reap_until(main: u32) -> i32 {
    use rustix::process::{WaitOptions, wait};
    loop {
        match wait(WaitOptions::empty()) {
            Ok(Some((pid, status))) if pid.as_raw_nonzero().get().unsigned_abs() == main => {
                if let Some(code) = status.exit_status() {
                    return code;
                }
                return 128 + status.terminating_signal().unwrap_or(0);
            }
            Ok(_) | Err(rustix::io::Errno::INTR) => {}
            // No child left (cannot happen while `main` runs).
            Err(_) => return 126,
        }
    }
}

/// The plan's `/dev`, writable folders, pins, read-only binds, folders
/// writable again and masks.
fn make_masks(plan: &InitPlan) -> Result<(), InitError> {
    // The proxy's socket, held open before any mask: a mask may cover the
    // folder it lies in (a runtime folder of sockets).
    let held = match &plan.net_socket {
        Some((source, _)) => Some(
            rustix::fs::open(
                source,
                rustix::fs::OFlags::PATH | rustix::fs::OFlags::CLOEXEC,
                rustix::fs::Mode::empty(),
            )
            .map_err(mount_error("open", source))?,
        ),
        None => None,
    };
    if plan.fresh_dev {
        fresh_dev()?;
    }
    if !plan.writable.is_empty() {
        for path in &plan.writable {
            mount_bind_recursive(path, path).map_err(mount_error("bind", path))?;
        }
        read_only_but(&plan.writable)?;
    }
    // Parents first, each on the layer around it: a bind inside a
    // read-only mount is read-only, so a folder writable again is
    // remounted without it (the kernel keeps a bind's flags from the mount
    // it is taken from).
    for (path, bind) in layers::in_mount_order(&plan.pinned, &plan.read_only, &plan.writable_again)
    {
        match bind {
            Bind::Pin => mount_bind_recursive(path, path).map_err(mount_error("pin", path))?,
            // With what is mounted below (a container's `/etc/resolv.conf`).
            Bind::ReadOnly => {
                mount_bind_recursive(path, path).map_err(mount_error("bind", path))?;
                remount(path, Access::ReadOnly)?;
            }
            Bind::WritableAgain => {
                mount_bind_recursive(path, path).map_err(mount_error("bind", path))?;
                remount(path, Access::Writable)?;
            }
        }
    }
    if !plan.read_only.is_empty() {
        below_read_only(plan)?;
    }
    // Masks after the read-only binds: an excluded path inside a protected
    // folder stays unreadable.
    for dir in &plan.hidden_dirs {
        mount(
            "tmpfs",
            dir,
            "tmpfs",
            MountFlags::NOSUID | MountFlags::NODEV | MountFlags::NOEXEC,
            c"mode=0",
        )
        .map_err(mount_error("mask", dir))?;
    }
    for file in &plan.hidden_files {
        mount_bind(&plan.denied, file).map_err(mount_error("mask", file))?;
        remount(file, Access::ReadOnly)?;
    }
    for (source, target) in &plan.bind_over {
        mount_bind(source, target).map_err(mount_error("bind", target))?;
        remount(target, Access::Writable)?;
    }
    if let (Some((_, base)), Some(held)) = (&plan.net_socket, &held) {
        let held_path = PathBuf::from(format!(
            "/proc/self/fd/{}",
            std::os::fd::AsRawFd::as_raw_fd(held)
        ));
        mount(
            "tmpfs",
            base,
            "tmpfs",
            MountFlags::NOSUID | MountFlags::NODEV | MountFlags::NOEXEC,
            c"mode=0700",
        )
        .map_err(mount_error("cover", base))?;
        let socket = base.join(SOCKET_NAME);
        std::fs::File::create(&socket).map_err(|source| InitError::Mount {
            what: "make",
            path: socket.clone(),
            source,
        })?;
        mount_bind(&held_path, &socket).map_err(mount_error("bind", &socket))?;
    }
    Ok(())
}

/// The name of this sandbox's proxy socket in the covered folder.
pub const SOCKET_NAME: &str = "proxy.sock";

/// Every mount below a read-only path read-only too (one the system had
/// there, copied with it), unless a folder writable again lies between:
/// what is mounted below that keeps its own flags. The plan's own mounts
/// are as they were made.
fn below_read_only(plan: &InitPlan) -> Result<(), InitError> {
    let mut layers = Layers::default();
    layers.add(&plan.writable, Layer::Writable);
    layers.add(&plan.read_only, Layer::ReadOnly);
    layers.add(&plan.writable_again, Layer::WritableAgain);
    let pinned: std::collections::HashSet<&Path> =
        plan.pinned.iter().map(PathBuf::as_path).collect();
    let own = |point: &Path| layers.at(point).is_some() || pinned.contains(point);
    let points = mount_points(|point| {
        !own(point)
            && layers
                .around(point)
                .is_some_and(|(_, layer)| layer == Layer::ReadOnly)
    })?;
    for point in &points {
        remount(point, Access::ReadOnly)?;
    }
    Ok(())
}

/// A new `/dev`: `null`, `zero`, `full`, `random`, `urandom`, `tty`, a
/// private `pts` and `shm`, the `fd` links; no disk.
fn fresh_dev() -> Result<(), InitError> {
    use rustix::fs::{FileType, Mode, makedev, mknodat};
    let dev = Path::new("/dev");
    mount(
        "tmpfs",
        dev,
        "tmpfs",
        MountFlags::NOSUID | MountFlags::NOEXEC,
        c"mode=0755",
    )
    .map_err(mount_error("mount", dev))?;
    let cwd = rustix::fs::CWD;
    for (name, major, minor) in [
        ("null", 1, 3),
        ("zero", 1, 5),
        ("full", 1, 7),
        ("random", 1, 8),
        ("urandom", 1, 9),
        ("tty", 5, 0),
    ] {
        let path = dev.join(name);
        mknodat(
            cwd,
            &path,
            FileType::CharacterDevice,
            Mode::from_raw_mode(0o666),
            makedev(major, minor),
        )
        .map_err(mount_error("make", &path))?;
        // The umask took bits off.
        rustix::fs::chmod(&path, Mode::from_raw_mode(0o666)).map_err(mount_error("make", &path))?;
    }
    for (link, target) in [
        ("fd", "/proc/self/fd"),
        ("stdin", "/proc/self/fd/0"),
        ("stdout", "/proc/self/fd/1"),
        ("stderr", "/proc/self/fd/2"),
        ("ptmx", "pts/ptmx"),
    ] {
        let path = dev.join(link);
        rustix::fs::symlink(target, &path).map_err(mount_error("make", &path))?;
    }
    let pts = dev.join("pts");
    rustix::fs::mkdir(&pts, Mode::from_raw_mode(0o755)).map_err(mount_error("make", &pts))?;
    mount(
        "devpts",
        &pts,
        "devpts",
        MountFlags::NOSUID | MountFlags::NOEXEC,
        c"newinstance,ptmxmode=0666,mode=620",
    )
    .map_err(mount_error("mount", &pts))?;
    let shm = dev.join("shm");
    rustix::fs::mkdir(&shm, Mode::from_raw_mode(0o1777)).map_err(mount_error("make", &shm))?;
    mount(
        "tmpfs",
        &shm,
        "tmpfs",
        MountFlags::NOSUID | MountFlags::NODEV,
        c"mode=1777",
    )
    .map_err(mount_error("mount", &shm))?;
    Ok(())
}

fn mount_error(what: &'static str, path: &Path) -> impl FnOnce(rustix::io::Errno) -> InitError {
    let path = path.to_path_buf();
    move |errno| InitError::Mount {
        what,
        path,
        source: errno.into(),
    }
}

/// What a remount makes of a bind.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Access {
    ReadOnly,
    Writable,
}

/// Remounts the bind at `path` read-only or writable, keeping the other
/// flags it has (in a user namespace the kernel refuses to clear `nosuid`,
/// `nodev`...).
fn remount(path: &Path, access: Access) -> Result<(), InitError> {
    let now = rustix::fs::statvfs(path).map_err(mount_error("inspect", path))?;
    let mut flags = MountFlags::BIND;
    if access == Access::ReadOnly {
        flags |= MountFlags::RDONLY;
    }
    for (has, keep) in [
        (StatVfsMountFlags::NOSUID, MountFlags::NOSUID),
        (StatVfsMountFlags::NODEV, MountFlags::NODEV),
        (StatVfsMountFlags::NOEXEC, MountFlags::NOEXEC),
        (StatVfsMountFlags::NOATIME, MountFlags::NOATIME),
        (StatVfsMountFlags::NODIRATIME, MountFlags::NODIRATIME),
        (StatVfsMountFlags::RELATIME, MountFlags::RELATIME),
    ] {
        if now.f_flag.contains(has) {
            flags |= keep;
        }
    }
    let what = match access {
        Access::ReadOnly => "make read-only",
        Access::Writable => "make writable again",
    };
    mount_remount(path, flags, "").map_err(mount_error(what, path))
}

/// Every mount read-only but the writable folders (and what is mounted
/// below them), `/proc` and `/dev`, from one reading of the mount table.
/// `/sys` is the kernel's: a mount of it that cannot be remounted here is
/// left as it is (writing there needs capabilities the command does not
/// have).
fn read_only_but(writable: &[PathBuf]) -> Result<(), InitError> {
    let points = mount_points(|point| {
        !point.starts_with("/proc")
            && !point.starts_with("/dev")
            && !writable.iter().any(|w| point.starts_with(w))
    })?;
    for point in &points {
        match remount(point, Access::ReadOnly) {
            Ok(()) => {}
            Err(_) if point.starts_with("/sys") => {}
            Err(error) => return Err(error),
        }
    }
    Ok(())
}

/// The mount points `keep` accepts, sorted, each once: a mount table that
/// cannot be read is an error (what it holds would stay writable).
fn mount_points(keep: impl Fn(&Path) -> bool) -> Result<Vec<PathBuf>, InitError> {
    let table =
        std::fs::read_to_string("/proc/self/mountinfo").map_err(|source| InitError::Mount {
            what: "read the mount table for",
            path: PathBuf::from("/"),
            source,
        })?;
    let mut points: Vec<PathBuf> = table
        .lines()
        .filter_map(|line| line.split(' ').nth(4))
        .map(|field| PathBuf::from(unescape(field)))
        .filter(|point| keep(point))
        .collect();
    points.sort();
    points.dedup();
    Ok(points)
}

/// A mount table field: space, tab, newline and backslash are written as
/// octal escapes (`\040`).
fn unescape(field: &str) -> String {
    let bytes = field.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let octal = bytes.get(i + 1..i + 4).and_then(|d| {
            std::str::from_utf8(d)
                .ok()
                .and_then(|d| u8::from_str_radix(d, 8).ok())
        });
        match (bytes[i], octal) {
            (b'\\', Some(byte)) => {
                out.push(byte);
                i += 4;
            }
            (byte, _) => {
                out.push(byte);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// No capability left in any set, the bounding set included, and no way
/// to gain one through a set-user-ID program.
fn drop_capabilities() -> Result<(), InitError> {
    for capability in CapabilitySet::all().iter() {
        match rustix::thread::remove_capability_from_bounding_set(capability) {
            // A capability this kernel does not know.
            Ok(()) | Err(rustix::io::Errno::INVAL) => {}
            Err(e) => return Err(InitError::Capabilities(e.into())),
        }
    }
    let none = CapabilitySets {
        effective: CapabilitySet::empty(),
        permitted: CapabilitySet::empty(),
        inheritable: CapabilitySet::empty(),
    };
    rustix::thread::set_capabilities(None, none).map_err(|e| InitError::Capabilities(e.into()))?;
    rustix::thread::set_no_new_privs(true).map_err(|e| InitError::Capabilities(e.into()))?;
    let left = rustix::thread::capabilities(None).map_err(|e| InitError::Capabilities(e.into()))?;
    if !left.permitted.is_empty() || !left.effective.is_empty() {
        return Err(InitError::Capabilities(std::io::Error::other(
            "capabilities remain after dropping them",
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_plan_survives_its_arguments() {
        let plan = InitPlan {
            writable: vec!["/p".into(), "/tmp".into()],
            pinned: vec!["/p/.git".into()],
            read_only: vec!["/a b".into(), "/c".into()],
            writable_again: vec!["/c/d".into()],
            hidden_dirs: vec!["/p/secrets".into()],
            hidden_files: vec!["/p/k.pem".into()],
            denied: "/s/denied".into(),
            cwd: "/p".into(),
            fresh_dev: true,
            bind_over: vec![("/s/runs/1".into(), "/s".into())],
            relay: Some(agentctx_network::Relay {
                socket: "/s/net/proxy.sock".into(),
                proxy_port: 3128,
                forwards: vec![8080, 5432],
            }),
            net_socket: Some(("/tmp/n/a1/proxy.sock".into(), "/tmp/n".into())),
            no_masks: false,
            program: "/bin/bash".into(),
            args: vec!["-c".into(), "--ro x".into()],
        };
        assert_eq!(InitPlan::from_args(plan.to_args()).ok(), Some(plan.clone()));
        let relay_only = InitPlan {
            no_masks: true,
            ..plan
        };
        assert_eq!(
            InitPlan::from_args(relay_only.to_args()).ok(),
            Some(relay_only)
        );
    }

    #[test]
    fn arguments_that_are_not_a_plan_are_refused() {
        let args = |list: &[&str]| list.iter().map(OsString::from).collect::<Vec<_>>();
        for bad in [
            args(&[
                "--ro", "relative", "--denied", "/d", "--chdir", "/", "--", "x",
            ]),
            args(&["--denied", "/d", "--chdir", "/", "x"]),
            args(&["--chdir", "/", "--", "x"]),
            args(&["--denied", "/d", "--chdir", "/", "--"]),
            args(&["--what", "/x", "--denied", "/d", "--chdir", "/", "--", "x"]),
        ] {
            assert!(matches!(InitPlan::from_args(bad), Err(InitError::Usage(_))));
        }
    }

    #[test]
    fn mount_table_escapes_are_read() {
        assert_eq!(unescape(r"/a\040b\134c"), r"/a b\c");
        assert_eq!(unescape(r"/trailing\04"), r"/trailing\04");
    }
}
