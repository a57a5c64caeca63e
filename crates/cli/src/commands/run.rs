//! `agentctx run -- AGENT [ARGS...]`: the agent in the sandbox of its
//! project's rules; exits with the agent's status. When no sandbox can be
//! made here the agent does not start (exit 126, the cause and the fix on
//! stderr).

use std::io::Write as _;

use agentctx_exec::{RunRequest, run as run_agent};
use agentctx_types::Agent;

use crate::cli::RunArgs;
use crate::commands::{Invocation, Outcome};

/// The status when the agent could not be started (a shell's own code).
const CANNOT_RUN: u8 = 126;

pub fn run(inv: &Invocation, args: &RunArgs) -> anyhow::Result<Outcome> {
    let Some((program, rest)) = args.command.split_first() else {
        anyhow::bail!("agentctx run: no agent to run (agentctx run -- claude)");
    };
    let name = std::path::Path::new(program)
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let agent = match args.agent {
        Some(agent) => agent,
        None => match Agent::ALL.into_iter().find(|a| a.as_str() == name) {
            Some(agent) => agent,
            None => anyhow::bail!(
                "agentctx run: which agent is `{name}`? Name it: agentctx run --agent claude -- {name}"
            ),
        },
    };
    let request = RunRequest {
        agent,
        program,
        args: rest,
        cwd: &inv.cwd,
        allow: &args.allow,
    };
    match run_agent(&inv.host(), &request) {
        Ok(outcome) => {
            if !outcome.refused.is_empty() {
                let mut stderr = std::io::stderr().lock();
                for line in &outcome.refused {
                    let _ = writeln!(stderr, "{line}");
                }
                crate::commands::mem::log(inv, "hook.log", &outcome.refused, true);
            }
            Ok(Outcome::Status(
                u8::try_from(exit_code(outcome.status)).unwrap_or(1),
            ))
        }
        Err(error) => {
            let _ = writeln!(std::io::stderr().lock(), "agentctx run: {error}");
            Ok(Outcome::Status(CANNOT_RUN))
        }
    }
}

/// A status as a shell gives it: the exit code, or 128 + the signal.
fn exit_code(status: std::process::ExitStatus) -> i32 {
    use std::os::unix::process::ExitStatusExt as _;
    status
        .code()
        .or_else(|| status.signal().map(|s| 128 + s))
        .unwrap_or(1)
}
