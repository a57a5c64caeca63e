//! `agentctx hook`: reads the agent's hook JSON on stdin, prints the reply
//! (or nothing), logs why, exits 0. The protocol is `agentctx_hooks`.

use std::io::Write;
use std::time::{Duration, Instant};

use agentctx_hooks::{ReadLimits, handle_event, handle_unread, read_bounded};

use crate::cli::HookArgs;
use crate::commands::{Invocation, Outcome};

/// How long a hook may take, from its start (reading stdin included),
/// before it answers without a decision: a tool call is then denied (the
/// agents carry on when a hook times out: Claude Code and Codex both run
/// the tool, measured), anything else gets nothing. Well inside the
/// agents' own timeouts (Claude Code: 30 s as installed; Codex: 600 s).
const DEADLINE: Duration = Duration::from_secs(20);

pub fn run(inv: &Invocation, args: &HookArgs, out: &mut dyn Write) -> anyhow::Result<Outcome> {
    let started = Instant::now();
    // Bounded: a writer that never closes stdin or sends gigabytes gets an
    // answer (ReadLimits: 16 MiB, 10 s, 5 s after the first byte).
    let received = read_bounded(std::io::stdin(), ReadLimits::default());
    let host = inv.host();
    let raw = &received.bytes;
    tracing::info!("read {} bytes of hook input", raw.len());
    let left = DEADLINE.saturating_sub(started.elapsed());
    let outcome = match &received.error {
        None => within_deadline(inv, raw, args.agent, left, || {
            handle_event(raw, args.agent, args.event.as_deref(), &host)
        }),
        Some(why) => within_deadline(inv, raw, args.agent, left, || {
            handle_unread(raw, why, args.agent, args.event.as_deref(), &host)
        }),
    };
    crate::commands::mem::log(inv, "hook.log", &outcome.notes, !args.explain);
    if args.explain {
        for note in &outcome.notes {
            writeln!(out, "- {note}")?;
        }
        match &outcome.output {
            Some(reply) => writeln!(out, "output:\n{}", serde_json::to_string_pretty(reply)?)?,
            None => writeln!(out, "output: none")?,
        }
    } else if let Some(reply) = &outcome.output {
        serde_json::to_writer(&mut *out, reply)?;
        out.write_all(b"\n")?;
    }
    Ok(Outcome::Success)
}

/// Runs `decide` and returns its outcome; past `left` (what is left of
/// [`DEADLINE`]), answers for it (a denial for a tool call) and exits,
/// leaving the decision unmade.
fn within_deadline(
    inv: &Invocation,
    raw: &[u8],
    agent: Option<agentctx_types::Agent>,
    left: Duration,
    decide: impl FnOnce() -> agentctx_hooks::HookOutcome + Send,
) -> agentctx_hooks::HookOutcome {
    std::thread::scope(|scope| {
        let (send, receive) = std::sync::mpsc::channel();
        scope.spawn(move || {
            let _ = send.send(decide());
        });
        match receive.recv_timeout(left) {
            Ok(outcome) => outcome,
            Err(_) => {
                let text = String::from_utf8_lossy(raw);
                let tool_call = text.contains("PreToolUse") || text.contains("BeforeTool");
                let note = format!(
                    "no decision within {} s: {}",
                    DEADLINE.as_secs(),
                    if tool_call {
                        "the tool call is denied"
                    } else {
                        "doing nothing"
                    }
                );
                crate::commands::mem::log(inv, "hook.log", &[note], true);
                if tool_call {
                    let reply = agentctx_types::HookReply::deny(format!(
                        "Denied: agentctx could not decide on this tool call within {} seconds, and a call it has not judged does not run. Retry with a narrower call (a smaller search scope, fewer paths).",
                        DEADLINE.as_secs()
                    ));
                    let reply = agentctx_agents::render_reply(
                        agent.unwrap_or(agentctx_agents::dialect::UNNAMED),
                        &reply,
                    );
                    let mut stdout = std::io::stdout().lock();
                    let _ = serde_json::to_writer(&mut stdout, &reply);
                    let _ = stdout.write_all(b"\n");
                    let _ = stdout.flush();
                }
                // The decision still running cannot be waited for.
                std::process::exit(0);
            }
        }
    })
}
