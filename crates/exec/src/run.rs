//! `agentctx run -- AGENT [ARGS...]`: the agent itself in the sandbox
//! built from the rules of the project it starts in. Its own file tools,
//! the MCP servers it starts and every command it runs, whatever tool runs
//! it, meet the same masks and read-only paths; its network goes through
//! the proxy (its model API allowed); its environment holds no secret but
//! its own credentials. The hooks still give the context and the reasons;
//! a command they send to `agentctx exec` runs in this sandbox as it is.

use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};
use std::process::ExitStatus;

use agentctx_sandbox::{Bwrap, Extras, SandboxError};
use agentctx_session::Host;
use agentctx_types::Agent;

use crate::net;

/// What `agentctx run` is asked to run.
#[derive(Clone, Debug)]
pub struct RunRequest<'a> {
    /// Whose profile applies (its folders, hosts, credentials).
    pub agent: Agent,
    /// The agent's program and its arguments.
    pub program: &'a OsStr,
    /// Its arguments.
    pub args: &'a [OsString],
    /// Where it starts: its project's rules apply.
    pub cwd: &'a Path,
    /// More hosts allowed for this run (`--allow`).
    pub allow: &'a [String],
}

/// Why `agentctx run` did not start the agent.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// No state folder.
    #[error("no state folder ($XDG_STATE_HOME or $HOME)")]
    NoState,
    /// The sandbox cannot be made here.
    #[error("the agent was not started: {cause}\n{fix}")]
    NoSandbox {
        /// What bubblewrap said.
        cause: SandboxError,
        /// What to do about it, for this machine.
        fix: String,
    },
    /// The rules cannot be read.
    #[error(transparent)]
    Rules(#[from] agentctx_session::RulesError),
    /// The plan cannot be made.
    #[error(transparent)]
    Plan(#[from] agentctx_guard::PlanError),
    /// The network rules cannot be read.
    #[error("network rules: {0}")]
    Network(#[source] agentctx_network::PatternError),
    /// A `secret_env` or `pass_env` pattern cannot be read.
    #[error(transparent)]
    EnvPattern(agentctx_sandbox::EnvPatternError),
    /// A file the run needs cannot be made.
    #[error("{}: {source}", .path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// Inside another `agentctx run` already.
    #[error("already inside agentctx run: start the agent directly")]
    Nested,
}

/// How the run ended.
#[derive(Debug)]
pub struct RunOutcome {
    /// The agent's status.
    pub status: ExitStatus,
    /// What the network rules refused during the run, one line each.
    pub refused: Vec<String>,
    /// The folder the hooks inside kept their state in.
    pub state: PathBuf,
}

/// The hosts allowed for the agent besides the rules': its profile's,
/// the host and port of each base URL its variables name, `--allow`.
pub fn agent_hosts(host: &Host<'_>, agent: Agent, allow: &[String]) -> Vec<String> {
    let needs = agentctx_agents::dialect::of(agent).run_needs(host.env);
    let mut hosts: Vec<String> = needs.hosts.iter().map(|h| (*h).to_owned()).collect();
    for var in needs.base_url_vars {
        let Some(value) = host.env.get(var) else {
            continue;
        };
        if let Ok(uri) = value.parse::<http::Uri>()
            && let Some(authority) = uri.authority()
        {
            let port = authority
                .port_u16()
                .unwrap_or(if uri.scheme_str() == Some("http") {
                    80
                } else {
                    443
                });
            let name = authority.host();
            hosts.push(if name.contains(':') && !name.starts_with('[') {
                format!("[{name}]:{port}")
            } else {
                format!("{name}:{port}")
            });
        }
    }
    hosts.extend(allow.iter().cloned());
    hosts
}

/// Starts the agent in the sandbox and waits for it.
///
/// # Errors
/// The sandbox cannot be made here (with the fix), the rules cannot be
/// read: the agent has not started.
pub fn run(host: &Host<'_>, request: &RunRequest<'_>) -> Result<RunOutcome, RunError> {
    if net::inside_run(false) {
        return Err(RunError::Nested);
    }
    let state = agentctx_config::state_dir(host.env).ok_or(RunError::NoState)?;
    let sandbox = state.join("sandbox");
    let bwrap = Bwrap::find()
        .ok_or(SandboxError::NoBwrap)
        .and_then(|b| {
            b.with_init(agentctx_guard::init_program(host))
                .probe(&sandbox)
        })
        .map_err(|cause| RunError::NoSandbox {
            fix: fix_for(&cause),
            cause,
        })?;
    let rules = host.rules(request.cwd)?;
    let needs = agentctx_agents::dialect::of(request.agent).run_needs(host.env);
    // Its folders exist, so they can be bound writable (an agent makes its
    // own at its first start).
    for folder in &needs.writable {
        if folder.extension().is_none() && !folder.exists() {
            let _ = std::fs::create_dir_all(folder);
        }
    }
    // The user's cache folder, which programs make at their first start
    // and which the sandbox leaves writable only where it exists.
    if let Some(cache) = host.env.xdg_dir("XDG_CACHE_HOME", ".cache") {
        let _ = std::fs::create_dir_all(cache);
    }
    let mut needs = needs.existing();
    for (folder, keep) in needs.project {
        let folder = rules.root().join(folder);
        if folder.is_dir() {
            needs.read_only.extend(keep.iter().map(|k| folder.join(k)));
            needs.writable.push(folder);
        }
    }
    let own: Vec<PathBuf> = needs
        .writable
        .iter()
        .map(|p| std::fs::canonicalize(p).unwrap_or_else(|_| p.clone()))
        .collect();
    // The hooks inside keep their state in a folder of this run, bound
    // over agentctx's: nothing the agent's commands write there reaches a
    // session outside the run.
    let id = format!("{}-{}", std::process::id(), stamp());
    let run_state = net::run_state(&state, &id);
    std::fs::create_dir_all(&run_state).map_err(|source| RunError::Io {
        path: run_state.clone(),
        source,
    })?;
    // The scripts at the top of the agent's own folders (a status line a
    // read-only settings file runs) stay read-only; what the agent may not
    // leave behind is watched for and set aside when it ends.
    needs
        .read_only
        .extend(own.iter().flat_map(|f| scripts_in(f)));
    let plan = agentctx_guard::plan_for_run(
        host,
        &rules,
        &own,
        &needs.read_only,
        Some((&sandbox, "run")),
    )?;
    let mut watched = crate::aside::watch(host, &rules);
    watched.walk = plan.mounts.walked.clone();
    watched.absent.extend(
        agentctx_guard::protect::protected_paths(host, &rules)
            .into_iter()
            .chain(needs.read_only.iter().cloned())
            .filter(|p| !p.starts_with(rules.root()))
            .filter(|p| std::fs::symlink_metadata(p).is_err()),
    );
    let scripts_before: Vec<PathBuf> = own.iter().flat_map(|f| scripts_in(f)).collect();
    let allowed = agent_hosts(host, request.agent, request.allow);
    let policy = agentctx_guard::network::network_policy(host, &rules, &allowed)
        .map_err(RunError::Network)?
        .unwrap_or_default();
    let network = net::Network::start(policy).map_err(|source| RunError::Io {
        path: std::env::temp_dir(),
        source,
    })?;
    let extras = Extras {
        relay: Some(network.relay.clone()),
        net_socket: Some(network.net_socket.clone()),
        bind_over: vec![(run_state.clone(), state.clone())],
        init_program: agentctx_guard::init_program(host),
    };
    let program = request.program.to_string_lossy();
    let args: Vec<String> = request
        .args
        .iter()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    let arg_refs: Vec<&str> = args.iter().map(String::as_str).collect();
    let mut command = bwrap
        .command_with(&plan, &sandbox, request.cwd, &program, &arg_refs, &extras)
        .map_err(|cause| RunError::NoSandbox {
            fix: fix_for(&cause),
            cause,
        })?;
    let secrets = net::secret_env(host).map_err(RunError::EnvPattern)?;
    let keep: Vec<&str> = needs
        .key_vars
        .iter()
        .copied()
        .chain(needs.config_key_vars.iter().map(String::as_str))
        .collect();
    net::scrub(&mut command, &secrets, &keep);
    network.set_env(&mut command);
    command.env(net::RUN_MARKER, &id);
    agentctx_sandbox::keep_only_stdio(&command.handed_fds());
    let status = {
        let _ignore = ignore_interrupts();
        command.status().map_err(|source| RunError::Io {
            path: PathBuf::from(command.get_program()),
            source,
        })?
    };
    // The sandbox and everything in it are gone: what the agent left where
    // the rules protect, and new scripts at the top of its own folders,
    // are set aside (renamed beside, never removed).
    let mut refused = network.refusals();
    refused.extend(crate::aside::restore_head(watched.head.as_ref()));
    let mut made = crate::aside::made_by(&watched);
    made.extend(
        own.iter()
            .flat_map(|f| scripts_in(f))
            .filter(|p| !scripts_before.contains(p)),
    );
    refused.extend(
        crate::aside::set_aside(rules.root(), &made, &watched.links)
            .into_iter()
            .map(|line| line.replace("the command created", "the agent's session created")),
    );
    Ok(RunOutcome {
        status,
        refused,
        state: run_state,
    })
}

/// The files at the top of `folder` that a program runs: executable, or
/// named as a script (`statusline.sh`, `notify.py`).
fn scripts_in(folder: &Path) -> Vec<PathBuf> {
    use std::os::unix::fs::PermissionsExt as _;
    const SCRIPTS: [&str; 10] = [
        "sh", "bash", "zsh", "fish", "py", "js", "mjs", "cjs", "ts", "rb",
    ];
    let Ok(entries) = std::fs::read_dir(folder) else {
        return Vec::new();
    };
    let mut found: Vec<PathBuf> = entries
        .flatten()
        .take(4096)
        .filter(|e| {
            let Ok(meta) = std::fs::symlink_metadata(e.path()) else {
                return false;
            };
            let executable = meta.is_file() && meta.permissions().mode() & 0o111 != 0;
            let script = e
                .path()
                .extension()
                .is_some_and(|x| SCRIPTS.iter().any(|s| x.eq_ignore_ascii_case(s)));
            (meta.is_file() || meta.is_symlink()) && (executable || script)
        })
        .map(|e| e.path())
        .collect();
    found.sort();
    found
}

fn stamp() -> u128 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos())
}

/// What to do when no sandbox can be made, from what this machine says.
pub fn fix_for(cause: &SandboxError) -> String {
    let read = |path: &str| {
        std::fs::read_to_string(path)
            .map(|t| t.trim().to_owned())
            .ok()
    };
    if matches!(cause, SandboxError::NoBwrap) {
        return "Install bubblewrap (Debian and Ubuntu: sudo apt-get install bubblewrap; Fedora: sudo dnf install bubblewrap).".to_owned();
    }
    if read("/proc/sys/kernel/apparmor_restrict_unprivileged_userns").as_deref() == Some("1") {
        return "AppArmor forbids unprivileged user namespaces here (Ubuntu 23.10 and later: kernel.apparmor_restrict_unprivileged_userns = 1). Give bubblewrap a profile that allows them: write /etc/apparmor.d/bwrap with\n  abi <abi/4.0>,\n  include <tunables/global>\n  profile bwrap /usr/bin/bwrap flags=(unconfined) {\n    userns,\n  }\nthen run: sudo apparmor_parser -r /etc/apparmor.d/bwrap (docs/SECURITY.md, \"Under AppArmor\").".to_owned();
    }
    if read("/proc/sys/kernel/unprivileged_userns_clone").as_deref() == Some("0") {
        return "This kernel forbids unprivileged user namespaces (kernel.unprivileged_userns_clone = 0): sudo sysctl -w kernel.unprivileged_userns_clone=1 (and in /etc/sysctl.d/ to keep it).".to_owned();
    }
    if read("/proc/sys/user/max_user_namespaces").as_deref() == Some("0") {
        return "User namespaces are switched off (user.max_user_namespaces = 0): sudo sysctl -w user.max_user_namespaces=15000.".to_owned();
    }
    "Inside a container, user namespaces need the container's permission (Docker: --security-opt seccomp=unconfined, or run agentctx on the host); docs/SECURITY.md has the details.".to_owned()
}

/// While the agent runs, an interrupt from the keyboard is the agent's to
/// handle (the terminal sends it to the agent too): this process, whose
/// end ends the sandbox, waits on. A handler that only notes it, not
/// `SIG_IGN`, which the agent would inherit. A `SIGTERM` or `SIGHUP` still
/// ends this process, and the sandbox with it.
fn ignore_interrupts() -> Vec<signal_hook::SigId> {
    let noted = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    [signal_hook::consts::SIGINT, signal_hook::consts::SIGQUIT]
        .into_iter()
        .filter_map(|signal| {
            signal_hook::flag::register(signal, std::sync::Arc::clone(&noted)).ok()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn without_bubblewrap_the_fix_is_to_install_it() {
        let fix = fix_for(&SandboxError::NoBwrap);
        assert!(fix.contains("apt-get install bubblewrap"), "{fix}");
    }

    #[test]
    fn scripts_at_the_top_of_a_folder_are_found_and_nothing_else() {
        use std::os::unix::fs::PermissionsExt as _;
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let write = |name: &str, mode: u32| {
            let path = dir.path().join(name);
            std::fs::write(&path, "x").unwrap_or_else(|e| panic!("{e}"));
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode))
                .unwrap_or_else(|e| panic!("{e}"));
        };
        write("statusline.sh", 0o644);
        write("notify", 0o755);
        write("history.jsonl", 0o644);
        std::fs::create_dir(dir.path().join("hooks")).unwrap_or_else(|e| panic!("{e}"));
        let found: Vec<String> = scripts_in(dir.path())
            .iter()
            .filter_map(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
            .collect();
        assert_eq!(found, ["notify", "statusline.sh"]);
    }
}
