//! `agentctx context`: the initial context, composed by `agentctx_context::compose`.

use std::io::Write;

use agentctx_context::{ComposeParts, compose, count_tokens, with_system_prompt};
use agentctx_types::join_parts;

use crate::cli::ContextArgs;
use crate::commands::{Invocation, Outcome, write_json};

pub fn run(inv: &Invocation, args: &ContextArgs, out: &mut dyn Write) -> anyhow::Result<Outcome> {
    let host = inv.host();
    let remote = crate::commands::remote_repo(
        args.github.as_deref(),
        args.gitlab.as_deref(),
        args.api_url.as_deref(),
    );
    let is_remote = remote.is_some();
    let mut composed = match remote {
        Some(repo) => agentctx_context::compose_remote(&host, &repo, args.refresh)?,
        None => compose(&host, &inv.cwd, ComposeParts::ALL),
    };
    for warning in &composed.warnings {
        tracing::warn!("{warning}");
    }
    // The index a session here starts with (a remote repository has no
    // local memory).
    let recall = &inv.config.config.agentmem.recall;
    if !is_remote && recall.enabled && !args.no_memory {
        let mut notes = Vec::new();
        match agentctx_context::memory_index(
            &host,
            &inv.cwd,
            recall,
            jiff::Zoned::now().date(),
            &mut notes,
        ) {
            Ok(index) if !index.text.is_empty() => {
                composed.system.push(agentctx_types::ContextPart {
                    kind: agentctx_types::ContextPartKind::Memory,
                    text: index.text,
                })
            }
            Ok(_) => {}
            Err(error) => tracing::warn!("memory index left out: {error}"),
        }
        for note in &notes {
            tracing::debug!("{note}");
        }
    }
    if args.system_prompt.is_some() || args.tool_descriptions.is_some() {
        let read = |path: &Option<std::path::PathBuf>| -> anyhow::Result<String> {
            match path {
                Some(p) => std::fs::read_to_string(inv.cwd.join(p))
                    .map_err(|e| anyhow::anyhow!("cannot read {}: {e}", p.display())),
                None => Ok(String::new()),
            }
        };
        let (base, tools) = (read(&args.system_prompt)?, read(&args.tool_descriptions)?);
        composed = with_system_prompt(composed, &base, &tools);
    }
    if inv.json {
        count_tokens(&mut composed);
        write_json(out, &composed)?;
    } else {
        out.write_all(join_parts(&composed.system).as_bytes())?;
        if !composed.user_prefix.is_empty() {
            out.write_all(b"--- user message prefix ---\n")?;
            out.write_all(join_parts(&composed.user_prefix).as_bytes())?;
        }
    }
    Ok(Outcome::Success)
}
