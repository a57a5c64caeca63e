//! `agentctx hook`: reads the agent's hook JSON on stdin, prints the reply
//! (or nothing), logs why, exits 0. The protocol is `agentctx_hooks`.

use std::io::{Read, Write};

use agentctx_hooks::handle;

use crate::cli::HookArgs;
use crate::commands::{Invocation, Outcome};

pub fn run(inv: &Invocation, args: &HookArgs, out: &mut dyn Write) -> anyhow::Result<Outcome> {
    let mut raw = Vec::new();
    let read = std::io::stdin().read_to_end(&mut raw);
    let host = inv.host();
    let outcome = match read {
        Ok(_) => handle(&raw, args.agent, &host),
        Err(error) => agentctx_hooks::HookOutcome {
            notes: vec![format!("cannot read stdin ({error}): doing nothing")],
            ..Default::default()
        },
    };
    crate::commands::mem::log(inv, "hook.log", &outcome.notes, !args.explain);
    if args.explain {
        for note in &outcome.notes {
            writeln!(out, "- {note}")?;
        }
        match &outcome.reply {
            Some(reply) => writeln!(out, "output:\n{}", serde_json::to_string_pretty(reply)?)?,
            None => writeln!(out, "output: none")?,
        }
    } else if let Some(reply) = &outcome.reply {
        serde_json::to_writer(&mut *out, reply)?;
        out.write_all(b"\n")?;
    }
    Ok(Outcome::Success)
}
