//! `agentctx exec`: a shell command of a session run under the kernel. The
//! session's rules (its anchor) become masks and read-only binds
//! (agentctx-guard's plan, agentctx-sandbox's bubblewrap), the command runs
//! inside with only the standard streams, and what it left that an agent
//! would later load or run is set aside when it ends (`aside.rs`). Also the
//! tool input that makes an agent run a command there ([`wrapped_input`]:
//! PreToolUse's `updatedInput`, the command becoming `agentctx exec
//! --session ID -- COMMAND`).
//!
//! ```
//! let input = serde_json::json!({"command": "cargo test", "description": "tests"});
//! let wrapped = agentctx_exec::wrapped_input(
//!     "/usr/bin/agentctx", agentctx_types::Agent::Codex, "s1", &input, false, None,
//! ).unwrap();
//! assert_eq!(
//!     wrapped["command"],
//!     "'/usr/bin/agentctx' exec --session 's1' --agent codex -- 'cargo test'"
//! );
//! assert_eq!(wrapped["description"], "tests");
//! ```
#![deny(missing_docs)]

mod aside;
pub mod net;
mod run;

pub use run::{RunError, RunOutcome, RunRequest, agent_hosts, fix_for, run};

pub use aside::sweep_pending;

use std::path::{Path, PathBuf};
use std::process::ExitStatus;

use agentctx_rules::Rules;
use agentctx_sandbox::{Bwrap, SandboxError};
use agentctx_types::Agent;
use serde_json::Value;

use agentctx_guard::{PlanError, init_program, plan_for};
use agentctx_session::{AnchorError, Host, read_anchor};

/// The tool input that runs `input`'s shell command in the sandbox: the
/// same input with `command` replaced (Claude Code keeps its other fields;
/// Codex reads only `command`). `keeps_cwd`: the agent's shell keeps the
/// working directory between commands (Claude Code's `Bash`), so the
/// command's last folder is carried back out. What runs outside the sandbox is the shell's own (`[`, `cd`,
/// `$(<file)`) or `rm` from the system's `PATH` (`command -p`): nothing a
/// sandboxed command could have left in a folder of the user's `PATH`.
pub fn wrapped_input(
    program: &str,
    agent: Agent,
    session: &str,
    input: &Value,
    required: bool,
    cwd_script: Option<&Path>,
) -> Option<Value> {
    let command = input.get("command")?.as_str()?;
    let quote = agentctx_shell::quote;
    let base = format!(
        "{} exec --session {} --agent {agent}{}",
        quote(program),
        quote(session),
        if required { " --required" } else { "" }
    );
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
pub fn cwd_script_path(host: &Host<'_>, session: &str, call: &str) -> Option<PathBuf> {
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
    let quote = agentctx_shell::quote;
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
    /// The session's anchor cannot be read.
    #[error(transparent)]
    Anchor(#[from] AnchorError),
    /// The sandbox's plan cannot be made.
    #[error(transparent)]
    Plan(#[from] PlanError),
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
    /// The rules confine the network, the sandbox is required, and no
    /// network namespace can be made.
    #[error("{cause}; and the network rules cannot be held without agentctx's sandbox")]
    NetworkNotConfined {
        /// Why no sandbox could be made.
        cause: SandboxError,
    },
    /// The config's network rules cannot be read.
    #[error("network rules: {0}")]
    Network(#[source] agentctx_network::PatternError),
    /// A `secret_env` or `pass_env` pattern cannot be read.
    #[error(transparent)]
    EnvPattern(agentctx_sandbox::EnvPatternError),
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
    pub agent: Agent,
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
    let own = agentctx_agents::dialect::of(request.agent).project_settings_folder();
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
        agentctx_guard::protect::make_start_folder_configs(&anchor.root, start);
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
    let policy = agentctx_guard::network::network_policy(&anchored, &rules, &[])
        .map_err(ExecError::Network)?;
    let secrets = net::secret_env(&anchored).map_err(ExecError::EnvPattern)?;
    let mut network = None;
    // Inside `agentctx run`: its sandbox already holds (the kernel is
    // asked), so the command runs in it as it is.
    let in_run = net::inside_run(policy.is_some()) && plan.enforced_here().is_ok();
    let usable = if in_run {
        Err(SandboxError::Unusable {
            message: "inside agentctx run".to_owned(),
        })
    } else {
        Bwrap::find()
            .ok_or(SandboxError::NoBwrap)
            .and_then(|bwrap| bwrap.with_init(init_program(host)).probe(&sandbox))
    };
    // The system call filter bubblewrap reads: open until the command starts.
    let mut handed: Option<std::os::fd::OwnedFd> = None;
    let (mut command, mode) = match usable {
        Ok(bwrap) => {
            let mut extras = agentctx_sandbox::Extras {
                init_program: init_program(host),
                ..Default::default()
            };
            if let Some(policy) = policy {
                let started = net::Network::start(policy).map_err(|source| {
                    ExecError::Sandbox(SandboxError::Io {
                        path: std::env::temp_dir(),
                        source,
                    })
                })?;
                extras.relay = Some(started.relay.clone());
                extras.net_socket = Some(started.net_socket.clone());
                network = Some(started);
            }
            let (mut command, fd) = bwrap
                .command_with(
                    &plan,
                    &sandbox,
                    request.cwd,
                    shell,
                    &["-c", script],
                    &extras,
                )?
                .into_parts();
            handed = fd;
            if let Some(network) = &network {
                network.set_env(&mut command);
            }
            (command, ExecMode::Sandboxed)
        }
        Err(_) if in_run => {
            let mut command = std::process::Command::new(shell);
            command.args(["-c", script]).current_dir(request.cwd);
            (command, ExecMode::Enforced)
        }
        // Inside another agent's sandbox, which may forbid a nested one:
        // what counts is whether the kernel here refuses what is masked.
        Err(cause) => {
            // The rules confine the network and nothing here does.
            if policy.is_some() && request.required && !net::only_loopback() {
                return Err(ExecError::NetworkNotConfined { cause });
            }
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
    // No secret of the agent's environment reaches the command (nor,
    // through it, anything it could send).
    net::scrub(&mut command, &secrets, &[]);
    command.env("AGENTCTX_COMMAND", request.command);
    match request.cwd_file {
        Some(file) => command.env("AGENTCTX_CWD_FILE", file),
        None => command.env_remove("AGENTCTX_CWD_FILE"),
    };
    // Only the standard streams reach the command: a folder or file this
    // process inherited would lead around the masks (`/proc/self/fd/N`).
    let handed_fds: Vec<std::os::fd::RawFd> =
        handed.iter().map(std::os::fd::AsRawFd::as_raw_fd).collect();
    agentctx_sandbox::keep_only_stdio(&handed_fds);
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
    if let Some(network) = &network {
        refused.extend(network.refusals());
    }
    // The folder the command ended in, as its shell wrote it: a path, one
    // line (what a command writes there is only ever used as a folder).
    let cwd = request
        .cwd_file
        .and_then(|file| agentctx_fs::read_to_string(file, 64 * 1024).ok())
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
