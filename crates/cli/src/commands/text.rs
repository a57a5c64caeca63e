//! `agentctx trim` and `agentctx prompt`.

use std::io::{Read, Write};

use agentctx_types::{PromptText, TrimReport};

use crate::cli::{OutputGetArgs, PromptCommand, TrimArgs};
use crate::commands::{Invocation, Outcome, write_json};

pub fn trim(inv: &Invocation, args: &TrimArgs, out: &mut dyn Write) -> anyhow::Result<Outcome> {
    let mut raw = Vec::new();
    std::io::stdin().lock().read_to_end(&mut raw)?;
    // Tool outputs may hold invalid UTF-8; the model gets text, so it is replaced.
    let input = String::from_utf8_lossy(&raw);
    let store = outputs(inv);
    let mut trimmed = match &store {
        Some(_) if !args.no_keep => agentctx_core::trim_keeping(&input, args.max_bytes),
        _ => agentctx_core::trim(&input, args.max_bytes),
    };
    if let (Some(store), Some(id)) = (&store, &trimmed.id)
        && let Err(error) = store.keep(id, &trimmed.removed)
    {
        // A reminder must not name an id nothing answers.
        tracing::warn!("the cut part is not kept: {error}");
        trimmed = agentctx_core::trim(&input, args.max_bytes);
    }
    if inv.json {
        write_json(
            out,
            &TrimReport {
                removed_bytes: trimmed.removed_bytes as u64,
                removed_lines: trimmed.removed_lines as u64,
                text: trimmed.text,
                id: trimmed.id,
            },
        )?;
    } else {
        out.write_all(trimmed.text.as_bytes())?;
    }
    Ok(Outcome::Success)
}

/// Where cut parts are kept: `$XDG_STATE_HOME/agentctx/outputs`.
fn outputs(inv: &Invocation) -> Option<agentctx_core::OutputStore> {
    agentctx_config::state_dir(&inv.env).map(|d| agentctx_core::OutputStore::at(d.join("outputs")))
}

/// `agentctx output get ID`: one page of a kept part; text mode ends a
/// page that is not the last with a line saying where the next starts.
pub fn output_get(
    inv: &Invocation,
    args: &OutputGetArgs,
    out: &mut dyn Write,
) -> anyhow::Result<Outcome> {
    let store = outputs(inv)
        .ok_or_else(|| anyhow::anyhow!("no state folder ($XDG_STATE_HOME or $HOME)"))?;
    let page = store.page(&args.id, args.offset, args.max_bytes)?;
    if inv.json {
        write_json(
            out,
            &agentctx_types::OutputPage {
                id: args.id.to_ascii_lowercase(),
                offset: page.offset as u64,
                next_offset: page.next.map(|n| n as u64),
                total_bytes: page.total as u64,
                text: page.text,
            },
        )?;
    } else {
        out.write_all(page.text.as_bytes())?;
        if let Some(next) = page.next {
            if !page.text.ends_with('\n') {
                out.write_all(b"\n")?;
            }
            writeln!(
                out,
                "[{} of {} bytes; more: agentctx output get {} --offset {next}]",
                next, page.total, args.id
            )?;
        }
    }
    Ok(Outcome::Success)
}

pub fn prompt(
    inv: &Invocation,
    which: &PromptCommand,
    out: &mut dyn Write,
) -> anyhow::Result<Outcome> {
    let text = match which {
        PromptCommand::AgentsGuidance => agentctx_core::AGENTS_GUIDANCE,
        PromptCommand::Rules => return crate::commands::rules::prompt(inv, out),
    };
    if inv.json {
        let text = text.trim_end().to_owned();
        write_json(out, &PromptText { text })?;
    } else {
        out.write_all(text.as_bytes())?;
    }
    Ok(Outcome::Success)
}
