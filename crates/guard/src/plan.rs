//! The kernel's side of the rules: whether a session's shell commands run
//! in agentctx's sandbox, and what the sandbox masks, keeps read-only and
//! lets a command write ([`plan_for`]); the same as a Codex permission
//! profile ([`codex_permissions`]).

use std::path::{Path, PathBuf};

use agentctx_rules::Rules;
use agentctx_sandbox::{Bwrap, Plan, SandboxError};
use agentctx_session::Host;
use agentctx_types::SandboxMode;

/// Why the sandbox's plan cannot be made.
#[derive(Debug, thiserror::Error)]
pub enum PlanError {
    /// The rules cannot be built.
    #[error(transparent)]
    Rules(#[from] agentctx_rules::DefaultRulesError),
    /// The sandbox cannot be made.
    #[error(transparent)]
    Sandbox(#[from] SandboxError),
}

/// What happens to a shell command of this session.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ShellRun {
    /// As the agent runs it; its words are checked (and why not sandboxed).
    Plain(String),
    /// In the sandbox, with this bubblewrap.
    Sandboxed(Bwrap),
    /// Not at all: the sandbox is required and cannot run here.
    Refused(String),
}

/// Where `agentctx exec` keeps its walks, its probe and its mask file.
pub fn sandbox_state(host: &Host<'_>) -> Option<PathBuf> {
    agentctx_config::state_dir(host.env).map(|d| d.join("sandbox"))
}

/// Whether this session's shell commands run in the sandbox.
pub fn shell_run(host: &Host<'_>, rules: &Rules) -> ShellRun {
    let strict = rules.doc().strict || host.config.project_agent_rules.strict;
    let mode = match host.config.project_agent_rules.sandbox {
        // Strict mode needs the kernel, unless it is switched off: then
        // strict mode denies every command line it cannot verify.
        SandboxMode::Auto if strict => SandboxMode::On,
        mode => mode,
    };
    if mode == SandboxMode::Off {
        return ShellRun::Plain("project_agent_rules.sandbox: off".to_owned());
    }
    if host.program.is_none() {
        return match mode {
            SandboxMode::On => {
                ShellRun::Refused("no agentctx program is known to run the sandbox with".to_owned())
            }
            _ => ShellRun::Plain("no agentctx program to run the sandbox with".to_owned()),
        };
    }
    let usable = match (Bwrap::find(), sandbox_state(host)) {
        (None, _) => Err(SandboxError::NoBwrap.to_string()),
        (Some(_), None) => Err("no state folder ($XDG_STATE_HOME or $HOME)".to_owned()),
        (Some(bwrap), Some(state)) => bwrap.probe(&state).map_err(|e| e.to_string()),
    };
    match (usable, mode) {
        (Ok(bwrap), _) => ShellRun::Sandboxed(bwrap),
        (Err(why), SandboxMode::On) => ShellRun::Refused(format!(
            "{}: {why}",
            if strict {
                "strict mode runs shell commands only in the sandbox"
            } else {
                "project_agent_rules.sandbox is on"
            }
        )),
        (Err(why), _) => ShellRun::Plain(format!("the sandbox cannot run here ({why})")),
    }
}

/// Whether the sandbox is the session's choice rather than its
/// requirement (`sandbox: auto`, not strict mode).
pub fn sandbox_optional(host: &Host<'_>, rules: &Rules) -> bool {
    let strict = rules.doc().strict || host.config.project_agent_rules.strict;
    host.config.project_agent_rules.sandbox == SandboxMode::Auto && !strict
}

/// The name of the sandbox's first program, installed beside `agentctx`.
pub const INIT_PROGRAM: &str = "agentctx-sandbox-init";

/// `agentctx-sandbox-init` beside the agentctx program that runs.
pub fn init_program(host: &Host<'_>) -> Option<PathBuf> {
    host.program.map(|p| p.with_file_name(INIT_PROGRAM))
}

/// What the sandbox masks and protects for the project `rules` are of;
/// `shell`: for a shell command (the agents' whole user folders are then
/// read-only too); `kept`: the folder and key of a kept walk.
pub fn plan_for(
    host: &Host<'_>,
    rules: &Rules,
    shell: bool,
    kept: Option<(&Path, &str)>,
) -> Result<Plan, PlanError> {
    let protection = if shell {
        sandbox_protection(host, rules, &[], &[])
    } else if host.config.project_agent_rules.protect_config {
        crate::protect::protection(host, rules)
    } else {
        agentctx_sandbox::Protection::default()
    };
    let (state, key) = kept.map_or((None, ""), |(s, k)| (Some(s), k));
    Ok(Plan::build(rules, &protection, state, key)?)
}

/// What the sandbox around a whole agent (`agentctx run`) masks and
/// protects: a shell command's plan, with the agent's own folders
/// (`own`: its sessions, transcripts, caches) writable, the files in them
/// that hold hooks, plugins and MCP servers (the protected paths and
/// `own_read_only`) still read-only.
///
/// # Errors
/// As [`plan_for`].
pub fn plan_for_run(
    host: &Host<'_>,
    rules: &Rules,
    own: &[PathBuf],
    own_read_only: &[PathBuf],
    kept: Option<(&Path, &str)>,
) -> Result<Plan, PlanError> {
    let protection = sandbox_protection(host, rules, own, own_read_only);
    let (state, key) = kept.map_or((None, ""), |(s, k)| (Some(s), k));
    Ok(Plan::build(rules, &protection, state, key)?)
}

/// What a sandbox masks, keeps read-only and lets write, for a shell
/// command (`own` empty) or a whole agent, whose own folders are writable
/// but for `own_read_only`.
fn sandbox_protection(
    host: &Host<'_>,
    rules: &Rules,
    own: &[PathBuf],
    own_read_only: &[PathBuf],
) -> agentctx_sandbox::Protection {
    let real = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
    let own_real: Vec<PathBuf> = own.iter().map(|p| real(p)).collect();
    let is_own = |p: &Path| !own_real.is_empty() && own_real.contains(&real(p));
    let mut protection = agentctx_sandbox::Protection::default();
    if host.config.project_agent_rules.protect_config {
        protection = crate::protect::protection(host, rules);
        // A protected folder that is the agent's own is writable; what in
        // it holds settings stays read-only (`own_read_only`).
        protection.paths.retain(|p| !is_own(p));
        protection.paths.extend(own_read_only.iter().cloned());
        // In the sandbox the agents' whole user folders are read-only:
        // their processes write there, a shell command does not need to.
        protection
            .paths
            .extend(user_folders(host).into_iter().filter(|f| !is_own(f)));
        // And what would run outside the sandbox what a command left there.
        protection
            .paths
            .extend(crate::escape::read_only(host, rules));
        // The home folder whole, wherever it lies (a home in `/tmp`, as in
        // CI and containers, lay in a writable folder): a startup file that
        // does not exist yet (`~/.bash_profile`, `~/.config/git/config`)
        // cannot be bound read-only, and a login shell outside runs it.
        // The caches of `sandbox_writable` and a project in the home are
        // writable again inside it.
        protection.paths.extend(read_only_home(host, rules));
        // From a session in one of the project's worktrees, the project
        // itself: the worktree and the git folder are what its commands
        // work in.
        if rules.main_checkout() != rules.root() {
            protection.paths.push(rules.main_checkout().to_path_buf());
        }
        protection.hidden = crate::escape::hidden(host);
    }
    // What a command may write: the project, the temporary folders and
    // the configured caches (and the agent's own folders under `run`); the
    // rest is read-only, whatever runs there later (docs/SECURITY.md).
    protection.writable = writable(host, rules);
    protection.writable.extend(own.iter().cloned());
    protection
}

/// The folders a sandboxed command may write: the project (with the
/// worktrees Claude Code keeps in it and their git folders, or, in such a
/// worktree, the project's git folder), the temporary folders and
/// `project_agent_rules.sandbox_writable` (`~/` expanded).
fn writable(host: &Host<'_>, rules: &Rules) -> Vec<PathBuf> {
    let home = host.home();
    let mut folders = vec![
        rules.root().to_path_buf(),
        PathBuf::from("/tmp"),
        PathBuf::from("/var/tmp"),
    ];
    folders.extend(crate::escape::worktree_folders(rules.root()));
    // `$TMPDIR` of the agent, whose environment the command has: only a
    // real folder outside those. One inside them is writable already, and
    // a command could replace it with a link to the home folder, which the
    // next sandbox would then make writable (the folder is resolved anew
    // for each command).
    let temp = std::env::temp_dir();
    let inside = folders.iter().any(|f| temp.starts_with(f));
    let real = std::fs::symlink_metadata(&temp).is_ok_and(|m| m.is_dir());
    if !inside && real {
        folders.push(temp);
    }
    for entry in &host.config.project_agent_rules.sandbox_writable {
        match (entry.strip_prefix("~/"), &home) {
            (Some(rest), Some(home)) => folders.push(home.join(rest)),
            (None, _) if Path::new(entry).is_absolute() => folders.push(PathBuf::from(entry)),
            _ => {}
        }
    }
    folders
}

/// The home folder, to be read-only in the sandbox: not when it is the
/// project, the file system's root, or a folder `sandbox_writable` names
/// itself (the user made it writable).
fn read_only_home(host: &Host<'_>, rules: &Rules) -> Option<PathBuf> {
    let home = host.home()?;
    let home = std::fs::canonicalize(&home).unwrap_or(home);
    let named = host
        .config
        .project_agent_rules
        .sandbox_writable
        .iter()
        .any(|entry| matches!(entry.as_str(), "~" | "~/") || Path::new(entry) == home);
    let skip = named || home == rules.root() || home.parent().is_none();
    (!skip).then_some(home)
}

/// The user folders the agents' profiles keep whole (Claude Code's,
/// Codex's).
fn user_folders(host: &Host<'_>) -> Vec<PathBuf> {
    agentctx_types::Agent::ALL
        .into_iter()
        .filter_map(|agent| agentctx_agents::dialect::of(agent).user_folder(host.env))
        .collect()
}

/// The entries of a Codex permission profile that makes Codex's own
/// sandbox refuse what agentctx's would (observed with Codex 0.169.0's
/// `codex sandbox -P`): everything readable, the workspace, `/tmp` and
/// `$TMPDIR` writable, every excluded path `none`, every protected one
/// `read`. Paths in the project are workspace-relative, others absolute.
/// Returned as (table, key, access): table `""` is
/// `[permissions.agentctx.filesystem]`, `"workspace"` its
/// `":workspace_roots"` table.
///
/// # Errors
/// The project cannot be walked.
pub fn codex_permissions(
    host: &Host<'_>,
    root: &Path,
) -> Result<Vec<(&'static str, String, &'static str)>, PlanError> {
    let rules = Rules::load(root, &host.config.project_agent_rules)?.with_home(host.home());
    // The state folder and agentctx's cache are named read-only: they
    // exist from now on (Codex's profile names only what exists).
    if let Some(state) = agentctx_config::state_dir(host.env) {
        let _ = std::fs::create_dir_all(state);
    }
    if let Some(cache) = host.env.xdg_dir("XDG_CACHE_HOME", ".cache") {
        let _ = std::fs::create_dir_all(cache.join("agentctx"));
    }
    // Copilot CLI's folders, as `agentctx exec` makes them: read-only in
    // Codex's sandbox too, where `exec` checks that they are.
    if host.config.project_agent_rules.protect_config {
        crate::protect::make_start_folder_configs(root, host.anchor.map(|a| a.start_dir.as_path()));
    }
    let plan = plan_for(host, &rules, true, None)?;
    let root = rules.root();
    let mut entries: Vec<(&'static str, String, &'static str)> = vec![
        ("", ":root".to_owned(), "read"),
        ("", ":slash_tmp".to_owned(), "write"),
        ("", ":tmpdir".to_owned(), "write"),
        ("workspace", ".".to_owned(), "write"),
    ];
    let mut add = |path: &Path, access: &'static str| match path.strip_prefix(root) {
        Ok(relative) if !relative.as_os_str().is_empty() => {
            entries.push(("workspace", relative.display().to_string(), access));
        }
        Ok(_) => {}
        Err(_) => entries.push(("", path.display().to_string(), access)),
    };
    let read_only = &plan.mounts.read_only;
    for path in read_only {
        let inside_another = read_only
            .iter()
            .any(|other| other != path && path.starts_with(other));
        if !inside_another {
            add(path, "read");
        }
    }
    // The caches a command may write (the project and the temporary
    // folders are named above).
    for path in &plan.mounts.writable {
        let named = path.starts_with(root) || path.starts_with("/tmp");
        if !named && !path.starts_with(std::env::temp_dir()) {
            add(path, "write");
        }
    }
    // Codex's sandbox makes an entry that does not exist as an empty file
    // or folder (in the project too: litter) and fails to start when that
    // place is read-only: only what exists is named, once (not inside a
    // folder already named read-only).
    for path in plan
        .mounts
        .hidden_dirs
        .iter()
        .chain(&plan.mounts.hidden_files)
    {
        add(path, "none");
    }
    Ok(entries)
}
