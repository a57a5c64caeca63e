//! `agentctx exec`: a shell command in its session's sandbox. The agent's
//! shell runs this (the hook rewrote the command); its status is the
//! command's, and when the sandbox cannot be made the command does not run
//! (exit 126, the reason on stderr, which the model reads).

use std::io::Write as _;

use agentctx_hooks::{ExecRequest, exec};

use crate::cli::ExecArgs;
use crate::commands::{Invocation, Outcome};

/// The status of a command that could not be run (the shell's own code).
const CANNOT_RUN: u8 = 126;

pub fn run(inv: &Invocation, args: &ExecArgs) -> anyhow::Result<Outcome> {
    let line = match args.command.as_slice() {
        [one] => one.clone(),
        many => many
            .iter()
            .map(|w| agentctx_hooks::install::shell_quote(w))
            .collect::<Vec<_>>()
            .join(" "),
    };
    let request = ExecRequest {
        session: &args.session,
        agent: args.agent,
        cwd: &inv.cwd,
        command: &line,
        cwd_file: args.cwd_file.as_deref(),
        required: args.required,
    };
    match exec(&inv.host(), &request) {
        Ok(agentctx_hooks::ExecOutcome {
            status,
            mode,
            refused,
        }) => {
            if !refused.is_empty() {
                let mut stderr = std::io::stderr().lock();
                for line in &refused {
                    let _ = writeln!(stderr, "{line}");
                }
                crate::commands::mem::log(inv, "hook.log", &refused, true);
            }
            if let agentctx_hooks::ExecMode::Plain(why) = &mode {
                crate::commands::mem::log(
                    inv,
                    "hook.log",
                    &[format!("exec without a sandbox (sandbox: auto): {why}")],
                    true,
                );
            }
            use std::os::unix::process::ExitStatusExt as _;
            let code = status
                .code()
                .or_else(|| status.signal().map(|s| 128 + s))
                .unwrap_or(1);
            Ok(Outcome::Status(u8::try_from(code).unwrap_or(1)))
        }
        Err(error) => {
            let mut stderr = std::io::stderr().lock();
            let _ = writeln!(stderr, "agentctx exec: the command did not run: {error}");
            crate::commands::mem::log(inv, "hook.log", &[format!("exec refused: {error}")], true);
            Ok(Outcome::Status(CANNOT_RUN))
        }
    }
}
