//! `agentctx trim` and `agentctx prompt`.

use std::io::{Read, Write};

use agentctx_types::{PromptText, TrimReport};

use crate::cli::{PromptCommand, TrimArgs};
use crate::commands::{Invocation, Outcome, write_json};

pub fn trim(inv: &Invocation, args: &TrimArgs, out: &mut dyn Write) -> anyhow::Result<Outcome> {
    let mut raw = Vec::new();
    std::io::stdin().lock().read_to_end(&mut raw)?;
    // Tool outputs may hold invalid UTF-8; the model gets text, so it is replaced.
    let input = String::from_utf8_lossy(&raw);
    let trimmed = agentctx_core::trim(&input, args.max_bytes);
    if inv.json {
        write_json(
            out,
            &TrimReport {
                removed_bytes: trimmed.removed_bytes as u64,
                removed_lines: trimmed.removed_lines as u64,
                text: trimmed.text,
            },
        )?;
    } else {
        out.write_all(trimmed.text.as_bytes())?;
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
