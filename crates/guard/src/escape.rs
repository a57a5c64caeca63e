//! What a sandboxed command could use to get code run outside the sandbox
//! later in the session, so the sandbox keeps it read-only or out of reach:
//! a masked file is safe only while nothing unmasked runs what the
//! command left behind.
//!
//! - **Run by git**, which the agents and the user's prompt run outside:
//!   the project's `.git/config` (`core.fsmonitor`, `core.pager`, aliases)
//!   and `.git/hooks`, the user's `~/.gitconfig` and `~/.config/git`.
//! - **Run by a shell** that starts outside: the user's startup files
//!   (`~/.bashrc`, `~/.profile`, `~/.zshrc`, ...), `~/.ssh` (`ProxyCommand`
//!   runs when git pushes).
//! - **Found on `PATH`**: every folder of the agent's `PATH` this user may
//!   write, outside the project (`~/.local/bin`, `~/.cargo/bin`): a `git`
//!   or `rg` left there runs the next time the agent or a hook calls it.
//! - **Daemons that run commands on request** (hidden, not read-only): the
//!   user's systemd and D-Bus sockets (`systemd-run --user`), Docker's and
//!   Podman's, the system bus, tmux's and screen's (which type into the
//!   user's terminals).
//!
//! A file of these that does not exist yet cannot be bound: the project's
//! `.git/config` and `.git/hooks` are set aside when a command creates
//! them (`exec.rs`); the home folder is read-only whole in the sandbox
//! (`exec.rs`), wherever it lies, but its writable caches.
//!
//! A commit in one of the worktrees Claude Code keeps in
//! `<project>/.claude/worktrees/<name>` writes the worktree's git folder
//! (`.git/worktrees/<name>`) and, from a session in the worktree, the
//! project's common git folder: those are writable again
//! ([`worktree_folders`]), with what makes git run a program in them
//! read-only still.

use std::path::{Path, PathBuf};

use agentctx_rules::Rules;

use agentctx_session::Host;

/// What in a git folder makes git run a program (`core.fsmonitor`,
/// `core.hooksPath`, aliases, filters: the config; the hooks) or read
/// another folder's config instead (`commondir`, a linked worktree's own
/// files).
pub const GIT_ENTRIES: [&str; 7] = [
    "config",
    "config.worktree",
    "commondir",
    // A linked worktree's way back to its checkout: `git worktree` reads
    // it to find the folder it prunes, moves or repairs.
    "gitdir",
    "hooks",
    "worktrees",
    // Submodules' git folders, each with a config of its own.
    "modules",
];

/// The shell startup files, git's and ssh's user configuration, relative
/// to the home folder.
const HOME_ENTRIES: [&str; 22] = [
    ".bashrc",
    ".bash_profile",
    ".bash_login",
    ".bash_logout",
    ".bash_aliases",
    ".profile",
    ".zshrc",
    ".zshenv",
    ".zprofile",
    ".zlogin",
    ".zlogout",
    ".config/fish",
    ".config/environment.d",
    ".gitconfig",
    ".config/git",
    ".ssh",
    ".config/systemd",
    // What the desktop session starts at login (macOS's launchd, XDG
    // autostart, X sessions, PAM).
    "Library/LaunchAgents",
    ".config/autostart",
    ".xprofile",
    ".xsessionrc",
    ".pam_environment",
];

/// The paths kept read-only in the sandbox because something outside it
/// runs them: the project's git configuration and hooks, the user's
/// startup and git files, and the folders of `PATH` this user may write
/// outside the project. Only those that exist.
pub fn read_only(host: &Host<'_>, rules: &Rules) -> Vec<PathBuf> {
    let root = rules.root();
    let repository = Repository::of(root);
    let mut paths = repository
        .iter()
        .flat_map(Repository::dirs)
        .flat_map(|git| GIT_ENTRIES.map(|entry| git.join(entry)))
        .collect::<Vec<_>>();
    if let Some(repository) = &repository {
        // The worktrees' git folders, writable again when their checkout
        // is worked in here: what in them makes git run a program or look
        // elsewhere stays read-only.
        for (git, checkout) in repository.linked_worktrees() {
            paths.extend(GIT_ENTRIES.map(|entry| git.join(entry)));
            // A session started in the worktree (`claude --worktree`)
            // reads its rule file, an agent what it loads from a session's
            // folder (Copilot CLI's hooks).
            let rule_files = &host.config.project_agent_rules.rule_files;
            paths.extend(rule_files.iter().map(|f| checkout.join(f)));
            paths.extend(
                crate::protect::start_folder_configs()
                    .into_iter()
                    .map(|folder| checkout.join(folder)),
            );
        }
        // From a worktree the common folder is written for commits; its
        // HEAD and index are the main checkout's (a HEAD broken there makes
        // git take the folder for a repository of the command's).
        if !repository.common.starts_with(root) {
            paths.push(repository.common.join("HEAD"));
            paths.push(repository.common.join("index"));
        }
    }
    // A worktree's `.git` is a file naming its git folder: replaced, it
    // names one whose config the command wrote.
    let dot_git = root.join(".git");
    if std::fs::symlink_metadata(&dot_git).is_ok_and(|m| m.is_file()) {
        paths.push(dot_git);
    }
    if let Some(home) = host.home() {
        paths.extend(HOME_ENTRIES.iter().map(|entry| home.join(entry)));
        // In the writable caches, what something outside runs from them:
        // npx's copies (MCP servers started with `npx -y`), corepack's
        // package managers, pre-commit's hook environments, editors'
        // compiled code, a shell prompt's cached startup file, agentctx's own.
        let cache = host
            .env
            .xdg_dir("XDG_CACHE_HOME", ".cache")
            .unwrap_or_else(|| home.join(".cache"));
        paths.extend(
            ["node/corepack", "pre-commit", "nvim", "agentctx"]
                .iter()
                .map(|e| cache.join(e)),
        );
        paths.push(home.join(".npm/_npx"));
        if let Ok(entries) = std::fs::read_dir(&cache) {
            paths.extend(
                entries
                    .flatten()
                    .filter(|e| e.file_name().to_string_lossy().starts_with("p10k-"))
                    .map(|e| e.path()),
            );
        }
    }
    for dir in host
        .env
        .get("PATH")
        .map(|p| std::env::split_paths(p).collect::<Vec<_>>())
        .unwrap_or_default()
    {
        // A relative entry is the command's own folder: inside the project.
        let writable = rustix::fs::access(&dir, rustix::fs::Access::WRITE_OK).is_ok();
        if dir.is_absolute() && writable {
            let real = std::fs::canonicalize(&dir).unwrap_or(dir);
            if !real.starts_with(root) {
                paths.push(real);
            }
        }
    }
    paths.retain(|p| std::fs::symlink_metadata(p).is_ok());
    paths.sort();
    paths.dedup();
    paths
}

/// The sockets (and folders of them) of programs that run a command for
/// whoever connects, outside any sandbox.
pub fn hidden(host: &Host<'_>) -> Vec<PathBuf> {
    let uid = rustix::process::getuid().as_raw();
    let runtime = host
        .env
        .get("XDG_RUNTIME_DIR")
        .filter(|d| Path::new(d).is_absolute())
        .map_or_else(|| PathBuf::from(format!("/run/user/{uid}")), PathBuf::from);
    let tmux_dir = host
        .env
        .get("TMUX_TMPDIR")
        .filter(|d| Path::new(d).is_absolute())
        .map_or_else(|| PathBuf::from("/tmp"), PathBuf::from)
        .join(format!("tmux-{uid}"));
    let mut paths = vec![
        // The user's runtime folder whole: every socket there (D-Bus,
        // systemd, Docker, Podman, an editor's server, a terminal's remote
        // control, ssh-agent) runs what it is sent, outside.
        runtime.clone(),
        tmux_dir,
        PathBuf::from("/run/dbus/system_bus_socket"),
        PathBuf::from("/run/systemd/private"),
        PathBuf::from("/run/docker.sock"),
        PathBuf::from("/run/containerd/containerd.sock"),
        PathBuf::from("/run/podman/podman.sock"),
    ];
    // The socket folders such programs make in /tmp (this user's).
    if let Ok(entries) = std::fs::read_dir("/tmp") {
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            let socket_folder = [
                "ssh-", "zellij-", "emacs", "nvim", "kitty", "wezterm", "screen", "vscode-",
            ]
            .iter()
            .any(|prefix| name.starts_with(prefix));
            let mine = std::os::unix::fs::MetadataExt::uid(&match entry.metadata() {
                Ok(meta) => meta,
                Err(_) => continue,
            }) == uid;
            if socket_folder && mine {
                paths.push(entry.path());
            }
        }
    }
    if let Some(sock) = host.env.get("SSH_AUTH_SOCK") {
        paths.push(PathBuf::from(sock));
    }
    // The sockets the agent's own environment names.
    if let Some(tmux) = host.env.get("TMUX").and_then(|t| t.split(',').next()) {
        paths.push(PathBuf::from(tmux));
    }
    if let Some(docker) = host
        .env
        .get("DOCKER_HOST")
        .and_then(|d| d.strip_prefix("unix://"))
    {
        paths.push(PathBuf::from(docker));
    }
    if let Some(screen) = host.env.get("STY").and_then(|_| host.env.get("SCREENDIR")) {
        paths.push(PathBuf::from(screen));
    } else if let Some(user) = host.env.get("USER") {
        paths.push(PathBuf::from(format!("/run/screen/S-{user}")));
    }
    paths
        .into_iter()
        .filter(|p| p.is_absolute())
        // Where the socket really is (`/var/run` is a link to `/run`).
        .filter_map(|p| std::fs::canonicalize(&p).ok())
        .collect()
}

/// The project's git repository: the git folder of its checkout and the
/// common one (the same for a main checkout; for a linked worktree,
/// `.git/worktrees/<name>` of the repository and the repository's `.git`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Repository {
    /// The checkout's own git folder (real path).
    pub own: PathBuf,
    /// The common git folder (real path).
    pub common: PathBuf,
}

impl Repository {
    /// The repository `root` is a checkout of: `.git` itself, or where a
    /// `.git` file points (a worktree, a submodule) and its common folder.
    pub fn of(root: &Path) -> Option<Self> {
        let dot_git = root.join(".git");
        let meta = std::fs::symlink_metadata(&dot_git).ok()?;
        if meta.is_dir() {
            let git = std::fs::canonicalize(&dot_git).ok()?;
            return Some(Self {
                own: git.clone(),
                common: git,
            });
        }
        let own = std::fs::canonicalize(root.join(gitdir_in(&dot_git)?)).ok()?;
        let common = agentctx_fs::read_to_string(&own.join("commondir"), 64 * 1024)
            .ok()
            .and_then(|common| std::fs::canonicalize(own.join(common.trim())).ok())
            .unwrap_or_else(|| own.clone());
        Some(Self { own, common })
    }

    /// Its git folders, each once.
    pub fn dirs(&self) -> Vec<PathBuf> {
        let mut dirs = vec![self.own.clone(), self.common.clone()];
        dirs.dedup();
        dirs
    }

    /// The linked worktrees whose checkout lies where Claude Code keeps
    /// them (`.claude/worktrees/<name>` of the main checkout), with that
    /// checkout: each git folder of `<common>/worktrees/` whose `gitdir`
    /// names the `.git` of such a folder. A worktree elsewhere is not
    /// this project's to work in.
    pub fn linked_worktrees(&self) -> Vec<(PathBuf, PathBuf)> {
        let Some(main) = self.common.parent() else {
            return Vec::new();
        };
        let place = main.join(".claude/worktrees");
        let mut found: Vec<(PathBuf, PathBuf)> = std::fs::read_dir(self.common.join("worktrees"))
            .into_iter()
            .flatten()
            .flatten()
            .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
            .filter_map(|entry| {
                let git = entry.path();
                let named = agentctx_fs::read_to_string(&git.join("gitdir"), 64 * 1024).ok()?;
                let checkout = Path::new(named.trim()).parent()?;
                let checkout = std::fs::canonicalize(checkout).ok()?;
                (checkout.parent() == Some(place.as_path())).then_some((git, checkout))
            })
            .collect();
        found.sort();
        found
    }
}

/// The `gitdir:` a `.git` file names.
fn gitdir_in(dot_git: &Path) -> Option<PathBuf> {
    let text = agentctx_fs::read_to_string(dot_git, 64 * 1024).ok()?;
    let target = text.lines().find_map(|l| l.strip_prefix("gitdir:"))?;
    Some(PathBuf::from(target.trim()))
}

/// The folders a sandboxed command writes to work in the project's
/// worktrees beyond the project itself: for each worktree Claude Code
/// keeps in it, its checkout (in the read-only `.claude/`) and its git
/// folder (in the read-only `.git/worktrees`); from a session whose root
/// is a linked worktree, its git folder and the common one (outside the
/// root), where a commit writes objects and refs.
pub fn worktree_folders(root: &Path) -> Vec<PathBuf> {
    let Some(repository) = Repository::of(root) else {
        return Vec::new();
    };
    let mut folders = Vec::new();
    if repository.own != repository.common {
        folders.push(repository.common.clone());
        folders.push(repository.own.clone());
    }
    for (git, checkout) in repository.linked_worktrees() {
        if checkout.starts_with(root) {
            folders.push(git);
            folders.push(checkout);
        }
    }
    folders
}

/// Why a write to `path` made outside any sandbox is asked about: it is
/// one of the home folder's files that something runs later by itself (a
/// shell's startup file, git's or ssh's config, a login agent), so what
/// is written there outlives the session and the agent's oversight.
pub fn why_lasting(host: &Host<'_>, rules: &Rules, path: &Path) -> Option<String> {
    let target = crate::protect::real_or_lexical(path);
    let git = Repository::of(rules.root())
        .map(|r| r.dirs())
        .unwrap_or_default();
    let hit = host
        .home()
        .iter()
        .flat_map(|h| HOME_ENTRIES.iter().map(move |e| h.join(e)))
        // The project's git config and hooks: git runs what they name.
        .chain(
            git.iter()
                .flat_map(|g| GIT_ENTRIES.iter().map(move |e| g.join(e))),
        )
        // And what the sandbox keeps read-only for the same reason: the
        // writable folders of `PATH`, the caches' runnable parts.
        .chain(read_only(host, rules))
        // By case too: a macOS disk takes `~/.ZSHRC` for `~/.zshrc`.
        .find(|p| {
            let lower = |p: &Path| PathBuf::from(p.to_string_lossy().to_lowercase());
            target.starts_with(p) || lower(&target).starts_with(lower(p))
        })?;
    Some(format!(
        "it writes {}, which runs by itself later, outside the session (a shell, git, ssh or the desktop reads it)",
        hit.display()
    ))
}

/// Why a write to `path` is refused in a sandboxed session although no
/// rule protects it: something outside the sandbox runs it.
pub fn why_escape(host: &Host<'_>, rules: &Rules, path: &Path) -> Option<String> {
    if !host.config.project_agent_rules.protect_config {
        return None;
    }
    let target = crate::protect::real_or_lexical(path);
    let home = host.home();
    let git = Repository::of(rules.root())
        .map(|r| r.dirs())
        .unwrap_or_default();
    let hit = read_only(host, rules)
        .into_iter()
        // Whether they exist or not (a file tool creates what a command
        // would have had set aside): git's entries, and `HEAD` (broken, it
        // makes git take the project folder for a repository).
        .chain(
            git.iter()
                .flat_map(|g| GIT_ENTRIES.iter().chain(&["HEAD"]).map(move |e| g.join(e))),
        )
        .chain(
            home.iter()
                .flat_map(|h| HOME_ENTRIES.iter().map(move |e| h.join(e))),
        )
        .find(|p| target.starts_with(p))?;
    Some(format!(
        "{} runs outside the sandbox (git, a shell or the agent itself reads it), so commands here may not change it",
        hit.display()
    ))
}
