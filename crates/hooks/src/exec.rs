//! Shell commands under the kernel: whether a session's shell commands
//! run in agentctx's sandbox (`project_agent_rules.sandbox`, strict mode),
//! the tool input that makes the agent run them there (PreToolUse's
//! `updatedInput`: the command becomes `agentctx exec --session ID --
//! COMMAND`), and `agentctx exec` itself: the session's rules (its anchor)
//! turned into masks and read-only binds (crates/sandbox), the command run
//! inside, its status returned.

use std::path::{Path, PathBuf};
use std::process::ExitStatus;

use agentctx_rules::Rules;
use agentctx_sandbox::{Bwrap, Plan, SandboxError};
use agentctx_types::{HookAgent, SandboxMode, SessionAnchor};
use serde_json::Value;

use crate::Host;

/// What happens to a shell command of this session.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum ShellRun {
    /// As the agent runs it; its words are checked (and why not sandboxed).
    Plain(String),
    /// In the sandbox, with this bubblewrap.
    Sandboxed(Bwrap),
    /// Not at all: the sandbox is required and cannot run here.
    Refused(String),
}

/// Where `agentctx exec` keeps its walks, its probe and its mask file.
pub(crate) fn sandbox_state(host: &Host<'_>) -> Option<PathBuf> {
    agentctx_config::state_dir(host.env).map(|d| d.join("sandbox"))
}

/// Whether this session's shell commands run in the sandbox.
pub(crate) fn shell_run(host: &Host<'_>, rules: &Rules) -> ShellRun {
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
pub(crate) fn sandbox_optional(host: &Host<'_>, rules: &Rules) -> bool {
    let strict = rules.doc().strict || host.config.project_agent_rules.strict;
    host.config.project_agent_rules.sandbox == SandboxMode::Auto && !strict
}

/// The tool input that runs `input`'s shell command in the sandbox: the
/// same input with `command` replaced (Claude Code keeps its other fields;
/// Codex reads only `command`). `keeps_cwd`: the agent's shell keeps the
/// working directory between commands (Claude Code's `Bash`), so the
/// command's last folder is carried back out. What runs outside the sandbox is the shell's own (`[`, `cd`,
/// `$(<file)`) or `rm` from the system's `PATH` (`command -p`): nothing a
/// sandboxed command could have left in a folder of the user's `PATH`.
pub(crate) fn wrapped_input(
    program: &str,
    agent: HookAgent,
    session: &str,
    call: &str,
    input: &Value,
    required: bool,
    cwd_script: Option<&Path>,
) -> Option<Value> {
    let command = input.get("command")?.as_str()?;
    let quote = crate::install::shell_quote;
    let base = format!(
        "{} exec --session {} --agent {agent}{}",
        quote(program),
        quote(session),
        if required { " --required" } else { "" }
    );
    let _ = call;
    let line = match cwd_script {
        // Two simple commands: Claude Code 2.1.330 refuses, in a worktree, a
        // line that names git in any other form (`if`, `$(...)`, a
        // subshell). The script is agentctx's, written after the command in
        // its state folder (read-only to every sandboxed command): a `cd`
        // to the folder the command ended in, checked to be one, and the
        // command's status.
        Some(script) => format!(
            "{base} --cwd-script {file} -- {command_q}; . {file}",
            file = quote(&script.to_string_lossy()),
            command_q = quote(command),
        ),
        // The others' shells keep no folder between calls (measured for
        // Codex; the rest run each command in a fresh shell).
        None => format!("{base} -- {}", quote(command)),
    };
    let mut input = input.clone();
    input["command"] = Value::String(line);
    Some(input)
}

/// Where the script that carries a command's last folder back into the
/// agent's shell is written: agentctx's state folder, which no sandboxed
/// command may write.
pub(crate) fn cwd_script_path(host: &Host<'_>, session: &str, call: &str) -> Option<PathBuf> {
    agentctx_config::state_dir(host.env).map(|state| {
        state
            .join("exec")
            .join(format!("{}-{}.sh", safe(session), safe(call)))
    })
}

/// Writes the script the agent's shell sources after `agentctx exec`: a
/// `cd` to `dir` when it is a folder, removing itself, and `status` as the
/// status of the line. Nothing a command wrote reaches it but a folder's
/// path, quoted.
///
/// # Errors
/// The script cannot be written.
pub fn write_cwd_script(script: &Path, dir: Option<&Path>, status: i32) -> std::io::Result<()> {
    let quote = crate::install::shell_quote;
    let mut text = String::new();
    if let Some(dir) = dir.filter(|d| d.is_absolute() && d.is_dir()) {
        text.push_str(&format!(
            "cd -- {} 2>/dev/null\n",
            quote(&dir.to_string_lossy())
        ));
    }
    text.push_str(&format!(
        "command -p rm -f -- {}\n(exit {status})\n",
        quote(&script.to_string_lossy())
    ));
    if let Some(parent) = script.parent() {
        std::fs::create_dir_all(parent)?;
    }
    let mut temp = tempfile::NamedTempFile::new_in(script.parent().unwrap_or(Path::new(".")))?;
    std::io::Write::write_all(&mut temp, text.as_bytes())?;
    temp.persist(script).map(drop).map_err(|e| e.error)
}

fn safe(text: &str) -> String {
    text.chars()
        .filter(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_'))
        .take(80)
        .collect()
}

/// Why `agentctx exec` cannot run a command.
#[derive(Debug, thiserror::Error)]
pub enum ExecError {
    /// No state folder to find the session in.
    #[error("no state folder ($XDG_STATE_HOME or $HOME): the session's rules cannot be found")]
    NoState,
    /// The session's anchor is not there (its hooks never ran, or it was removed).
    #[error("session {session}: its rules were not recorded ({}); run the command through the agent's hook", .path.display())]
    NoAnchor {
        /// The session.
        session: String,
        /// Where it was looked for.
        path: PathBuf,
    },
    /// The anchor cannot be read.
    #[error("session {session}: {message}")]
    BadAnchor {
        /// The session.
        session: String,
        /// Why.
        message: String,
    },
    /// The rules cannot be built.
    #[error(transparent)]
    Rules(#[from] agentctx_rules::DefaultRulesError),
    /// The sandbox cannot be made.
    #[error(transparent)]
    Sandbox(#[from] SandboxError),
    /// No sandbox can be made, and the one the command runs in lets it
    /// reach what the rules mask.
    #[error("{cause}; and {} is reachable here, so the rules would not hold", .path.display())]
    NotEnforced {
        /// Why no sandbox could be made.
        cause: SandboxError,
        /// A path the rules mask that this process can reach.
        path: PathBuf,
    },
    /// The command cannot be started.
    #[error("cannot start {}: {source}", .program.display())]
    Spawn {
        /// The program.
        program: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
}

/// What `agentctx exec` is asked to run.
#[derive(Clone, Debug)]
pub struct ExecRequest<'a> {
    /// The session whose rules apply.
    pub session: &'a str,
    /// The agent (its own settings folder is kept read-only, made when missing).
    pub agent: HookAgent,
    /// The folder to run in.
    pub cwd: &'a Path,
    /// The command line, run by a shell (`bash -c`, else `sh -c`).
    pub command: &'a str,
    /// Where to write the folder the command ended in.
    pub cwd_file: Option<&'a Path>,
    /// The sandbox is required (strict mode, `sandbox: on`): when none can
    /// be made and the sandbox the command already runs in does not refuse
    /// what the rules mask, the command does not run. Otherwise it then
    /// runs as the agent would have run it (its words were checked).
    pub required: bool,
}

/// How `agentctx exec` ran a command.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ExecMode {
    /// In agentctx's sandbox.
    Sandboxed,
    /// Inside a sandbox that already refuses everything the rules mask.
    Enforced,
    /// As written (`sandbox: auto`, and no sandbox could be made): why.
    Plain(String),
}

/// Runs a shell command under the session's sandbox and returns its status.
///
/// # Errors
/// The session's rules cannot be found, the sandbox cannot be made, the
/// shell cannot start: the command has not run.
pub fn exec(host: &Host<'_>, request: &ExecRequest<'_>) -> Result<ExecOutcome, ExecError> {
    let state = agentctx_config::state_dir(host.env).ok_or(ExecError::NoState)?;
    let anchor = read_anchor(&state, request.session)?;
    let anchored = Host {
        config: &anchor.config,
        anchor: Some(&anchor),
        ..*host
    };
    let rules = Rules::from_capture(
        &anchor.root,
        &anchor.config.project_agent_rules,
        &anchor.rule_file,
    )?
    .with_home(host.home());
    // The agent's own project settings folder exists, so it can be bound
    // read-only (an empty folder is invisible to git).
    let own = match request.agent {
        HookAgent::Claude => Some(".claude"),
        HookAgent::Codex => Some(".codex"),
        HookAgent::Gemini => Some(".gemini"),
        HookAgent::Qwen => Some(".qwen"),
        HookAgent::Opencode => Some(".opencode"),
        // `.github` is the project's own: not created for this.
        HookAgent::Copilot => None,
    };
    if let Some(own) = own
        && anchor.config.project_agent_rules.protect_config
    {
        let _ = std::fs::create_dir(anchor.root.join(own));
    }
    if anchor.config.project_agent_rules.protect_config {
        let start = anchor
            .start_dir
            .starts_with(&anchor.root)
            .then_some(anchor.start_dir.as_path());
        crate::protect::make_copilot_folders(&anchor.root, start);
    }
    // The protected names a command could create (nothing can be bound
    // where nothing is): looked for again when it has ended, and kept
    // until then for a command that never gets there.
    let mut refused = crate::aside::sweep_pending(&state.join("sandbox"), &anchor.root);
    let mut watched = crate::aside::watch(&anchored, &rules);
    let sandbox = state.join("sandbox");
    let plan = plan_for(&anchored, &rules, true, Some((&sandbox, request.session)))?;
    watched.walk = plan.mounts.walked.clone();
    let pending = crate::aside::pending_file(&sandbox, &anchor.root, request.session);
    let _ = std::fs::create_dir_all(pending.parent().unwrap_or(&state))
        .and_then(|()| std::fs::write(&pending, serde_json::to_vec(&watched).unwrap_or_default()));
    let shell = ["/bin/bash", "/usr/bin/bash", "/bin/sh"]
        .into_iter()
        .find(|s| Path::new(s).is_file())
        .unwrap_or("/bin/sh");
    // The command reaches the shell as data, never re-quoted; the folder it
    // ends in is written on exit.
    let script = "trap 'if [ -n \"$AGENTCTX_CWD_FILE\" ]; then pwd -P >| \"$AGENTCTX_CWD_FILE\" 2>/dev/null; fi' EXIT\neval \"$AGENTCTX_COMMAND\"";
    let usable = Bwrap::find()
        .ok_or(SandboxError::NoBwrap)
        .and_then(|bwrap| bwrap.with_init(init_program(host)).probe(&sandbox));
    let (mut command, mode) = match usable {
        Ok(bwrap) => (
            bwrap.command(&plan, &sandbox, request.cwd, shell, &["-c", script])?,
            ExecMode::Sandboxed,
        ),
        // Inside another agent's sandbox, which may forbid a nested one:
        // what counts is whether the kernel here refuses what is masked.
        Err(cause) => {
            let mode = match plan.enforced_here() {
                Ok(()) => ExecMode::Enforced,
                Err(path) if request.required => {
                    return Err(ExecError::NotEnforced { cause, path });
                }
                Err(path) => {
                    ExecMode::Plain(format!("{cause}; {} is reachable here", path.display()))
                }
            };
            let mut command = std::process::Command::new(shell);
            command.args(["-c", script]).current_dir(request.cwd);
            (command, mode)
        }
    };
    command.env("AGENTCTX_COMMAND", request.command);
    match request.cwd_file {
        Some(file) => command.env("AGENTCTX_CWD_FILE", file),
        None => command.env_remove("AGENTCTX_CWD_FILE"),
    };
    // Only the standard streams reach the command: a folder or file this
    // process inherited would lead around the masks (`/proc/self/fd/N`).
    agentctx_sandbox::keep_only_stdio();
    let status = command.status().map_err(|source| ExecError::Spawn {
        program: PathBuf::from(command.get_program()),
        source,
    })?;
    // The sandbox and everything it started are gone: what the command
    // left is looked at with nothing of it still running.
    refused.extend(crate::aside::restore_head(watched.head.as_ref()));
    let made = crate::aside::made_by(&watched);
    refused.extend(crate::aside::set_aside(&anchor.root, &made, &watched.links));
    let _ = std::fs::remove_file(&pending);
    // The folder the command ended in, as its shell wrote it: a path, one
    // line (what a command writes there is only ever used as a folder).
    let cwd = request
        .cwd_file
        .and_then(|file| agentctx_readfile::read_to_string(file, 64 * 1024).ok())
        .map(|text| PathBuf::from(text.trim_end_matches('\n')))
        .filter(|dir| dir.is_absolute() && dir.is_dir());
    Ok(ExecOutcome {
        status,
        mode,
        refused,
        cwd,
    })
}

/// How a command ran under `agentctx exec`.
#[derive(Debug)]
pub struct ExecOutcome {
    /// Its exit status.
    pub status: ExitStatus,
    /// Sandboxed, enforced by an outer sandbox, or plain.
    pub mode: ExecMode,
    /// Protected files the command created, each set aside, one line each
    /// for the agent (its stderr).
    pub refused: Vec<String>,
    /// The folder the command ended in, when a `cwd_file` was asked for.
    pub cwd: Option<PathBuf>,
}

/// The name of the sandbox's first program, installed beside `agentctx`.
pub const INIT_PROGRAM: &str = "agentctx-sandbox-init";

/// `agentctx-sandbox-init` beside the agentctx program that runs.
pub(crate) fn init_program(host: &Host<'_>) -> Option<PathBuf> {
    host.program.map(|p| p.with_file_name(INIT_PROGRAM))
}

/// What the sandbox masks and protects for the project `rules` are of;
/// `shell`: for a shell command (the agents' whole user folders are then
/// read-only too); `kept`: the folder and key of a kept walk.
pub(crate) fn plan_for(
    host: &Host<'_>,
    rules: &Rules,
    shell: bool,
    kept: Option<(&Path, &str)>,
) -> Result<Plan, ExecError> {
    let mut protection = crate::protect::protection(host, rules);
    if !host.config.project_agent_rules.protect_config {
        protection = agentctx_sandbox::Protection::default();
    } else if shell {
        // In the sandbox the agents' whole user folders are read-only:
        // their processes write there, a shell command does not need to.
        protection.paths.extend(user_folders(host));
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
    if shell {
        // What a command may write: the project, the temporary folders and
        // the configured caches; the rest is read-only, whatever runs
        // there later (docs/SECURITY.md).
        protection.writable = writable(host, rules);
    }
    let (state, key) = kept.map_or((None, ""), |(s, k)| (Some(s), k));
    Ok(Plan::build(rules, &protection, state, key)?)
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

/// Claude Code's and Codex's user folders.
fn user_folders(host: &Host<'_>) -> Vec<PathBuf> {
    let claude = crate::claude_user_settings(host.env)
        .and_then(|settings| settings.parent().map(Path::to_path_buf));
    claude.into_iter().chain(host.codex_home()).collect()
}

/// The name of the permission profile agentctx writes into a project's
/// `.codex/config.toml`.
pub const CODEX_PROFILE: &str = "agentctx";

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
) -> Result<Vec<(&'static str, String, &'static str)>, ExecError> {
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
        crate::protect::make_copilot_folders(root, host.anchor.map(|a| a.start_dir.as_path()));
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

fn read_anchor(state: &Path, session: &str) -> Result<SessionAnchor, ExecError> {
    let valid = !session.is_empty()
        && !session.starts_with('.')
        && session.len() <= 200
        && session
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'));
    let path = state.join("anchors").join(format!("{session}.json"));
    if !valid {
        return Err(ExecError::BadAnchor {
            session: session.to_owned(),
            message: "not a session id".to_owned(),
        });
    }
    let text = std::fs::read_to_string(&path).map_err(|_| ExecError::NoAnchor {
        session: session.to_owned(),
        path: path.clone(),
    })?;
    serde_json::from_str(&text).map_err(|e| ExecError::BadAnchor {
        session: session.to_owned(),
        message: format!("{}: {e}", path.display()),
    })
}
