//! `agentctx mem capture`, and the state logs hooks write.

use std::io::Write;

use agentctx_agentmem::{Trigger, capture_with_config};
use agentctx_config::{Environment, StateLog};
use agentctx_types::AgentMemConfig;

use crate::cli::CaptureArgs;
use crate::commands::{Invocation, Outcome};

/// `AGENTMEM_DEBUG` read directly too: it must work when the config that
/// would carry it is broken.
pub fn debug_requested(config: &AgentMemConfig, env: &Environment) -> bool {
    config.debug
        || env.get("AGENTMEM_DEBUG").is_some_and(|v| {
            matches!(
                v.trim().to_ascii_lowercase().as_str(),
                "1" | "true" | "yes" | "on"
            )
        })
}

/// Appends `lines` to the state log `name`, and echoes them on stderr when
/// debugging (and `echo` allows). Never fails.
pub fn log<S: AsRef<str>>(inv: &Invocation, name: &str, lines: &[S], echo: bool) {
    log_in(&inv.env, &inv.config.config.agentmem, name, lines, echo);
}

/// [`log`] before an [`Invocation`] exists (a broken config).
pub fn log_in<S: AsRef<str>>(
    env: &Environment,
    config: &AgentMemConfig,
    name: &str,
    lines: &[S],
    echo: bool,
) {
    if echo && debug_requested(config, env) {
        let prefix = name.trim_end_matches(".log");
        let mut stderr = std::io::stderr().lock();
        for line in lines {
            let _ = writeln!(stderr, "{prefix}: {}", line.as_ref());
        }
    }
    if let Some(log) = StateLog::new(env, name) {
        log.append(lines);
    }
}

/// `agentctx mem capture`: always exit 0, nothing on stdout.
pub fn capture(
    inv: &Invocation,
    args: &CaptureArgs,
    _out: &mut dyn Write,
) -> anyhow::Result<Outcome> {
    // Bounded as the hook's input is (16 MiB, 10 s): a capture entry point
    // never hangs the agent nor takes its memory.
    let stdin = match args.payload {
        Some(_) => agentctx_hooks::Received {
            bytes: Vec::new(),
            error: None,
        },
        None => {
            agentctx_hooks::read_bounded(std::io::stdin(), agentctx_hooks::ReadLimits::default())
        }
    };
    let read = match stdin.error {
        Some(error) => Err(format!("failed: the hook's input was not read: {error}")),
        None => Trigger::read(args.payload.as_deref(), stdin.bytes.as_slice())
            .map_err(|error| format!("failed: {error}")),
    };
    let line = match read {
        Ok(trigger) => {
            let codex_home = inv.env.codex_home();
            capture_with_config(
                &trigger,
                &inv.config.config.agentmem,
                inv.env.home().as_deref(),
                codex_home.as_deref(),
                inv.env.xdg_dir("XDG_CACHE_HOME", ".cache").as_deref(),
            )
            .line
        }
        Err(line) => line,
    };
    log(inv, "agentmem.log", &[line], true);
    Ok(Outcome::Success)
}
