//! `agentctx exec`: a shell command in its session's sandbox. The agent's
//! shell runs this (the hook rewrote the command); its status is the
//! command's, and when the sandbox cannot be made the command does not run
//! (exit 126, the reason on stderr, which the model reads).

use std::io::Write as _;

use agentctx_exec::{ExecRequest, exec};

use crate::cli::ExecArgs;
use crate::commands::{Invocation, Outcome};

/// The status of a command that could not be run (the shell's own code).
const CANNOT_RUN: u8 = 126;

pub fn run(inv: &Invocation, args: &ExecArgs) -> anyhow::Result<Outcome> {
    let line = match args.command.as_slice() {
        [one] => one.clone(),
        many => many
            .iter()
            .map(|w| agentctx_shell::quote(w))
            .collect::<Vec<_>>()
            .join(" "),
    };
    // With --cwd-script, the sandboxed shell writes its last folder to a
    // file of ours, which becomes the script's `cd` once checked.
    let own_cwd_file = match &args.cwd_script {
        Some(_) => tempfile::NamedTempFile::new().ok(),
        None => None,
    };
    let cwd_file = own_cwd_file
        .as_ref()
        .map(|f| f.path())
        .or(args.cwd_file.as_deref());
    let request = ExecRequest {
        session: &args.session,
        agent: args.agent,
        cwd: &inv.cwd,
        command: &line,
        cwd_file,
        required: args.required,
    };
    let outcome = exec(&inv.host(), &request);
    if let Some(script) = &args.cwd_script {
        let (dir, status) = match &outcome {
            Ok(done) => (done.cwd.as_deref(), exit_code(done.status)),
            Err(_) => (None, i32::from(CANNOT_RUN)),
        };
        if let Err(error) = agentctx_exec::write_cwd_script(script, dir, status) {
            let _ = writeln!(
                std::io::stderr().lock(),
                "agentctx exec: cannot write {}: {error}",
                script.display()
            );
        }
    }
    match outcome {
        Ok(agentctx_exec::ExecOutcome {
            status,
            mode,
            refused,
            ..
        }) => {
            if !refused.is_empty() {
                let mut stderr = std::io::stderr().lock();
                for line in &refused {
                    let _ = writeln!(stderr, "{line}");
                }
                crate::commands::mem::log(inv, "hook.log", &refused, true);
            }
            if let agentctx_exec::ExecMode::Plain(why) = &mode {
                crate::commands::mem::log(
                    inv,
                    "hook.log",
                    &[format!("exec without a sandbox (sandbox: auto): {why}")],
                    true,
                );
            }
            Ok(Outcome::Status(
                u8::try_from(exit_code(status)).unwrap_or(1),
            ))
        }
        Err(error) => {
            let mut stderr = std::io::stderr().lock();
            let _ = writeln!(stderr, "agentctx exec: the command did not run: {error}");
            crate::commands::mem::log(inv, "hook.log", &[format!("exec refused: {error}")], true);
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
