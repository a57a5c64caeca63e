//! `agentctx-sandbox-init`: the first program in agentctx's sandbox.
//! `agentctx exec` starts it through bubblewrap with the session's masks
//! as arguments; it makes them, drops every capability, runs the command
//! and exits with its status. On any failure the command does not run: the
//! reason goes to stderr (the model reads it) and the status is 126, as a
//! shell's for a command it cannot run.

use std::io::Write as _;
use std::process::ExitCode;

fn main() -> ExitCode {
    let error = match agentctx_sandbox::InitPlan::from_args(std::env::args_os().skip(1)) {
        Ok(plan) => match agentctx_sandbox::enter(&plan) {
            // A status outside 0-255 cannot come from a process.
            Ok(status) => return ExitCode::from(u8::try_from(status).unwrap_or(255)),
            Err(error) => error,
        },
        Err(error) => error,
    };
    let _ = writeln!(
        std::io::stderr().lock(),
        "agentctx sandbox: the command did not run: {error}"
    );
    ExitCode::from(126)
}
