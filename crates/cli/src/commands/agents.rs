//! `agentctx root`, `agents init`, `agents resolve`, `session resume`.

use std::io::Write;
use std::path::PathBuf;

use agentctx_core::{
    CoreError, SessionStore, render_resolve_paths, resume_in_store, start_session,
};
use agentctx_types::RootInfo;
use anyhow::Context as _;

use crate::cli::{RequiredSessionArgs, ResolveArgs, SessionArgs};
use crate::commands::{Invocation, Outcome, write_json};

pub fn root(inv: &Invocation, out: &mut dyn Write) -> anyhow::Result<Outcome> {
    let info: RootInfo = crate::commands::project_root(inv, &inv.cwd)?;
    if inv.json {
        write_json(out, &info)?;
    } else {
        writeln!(out, "{}", info.root.display())?;
    }
    Ok(Outcome::Success)
}

pub fn init(inv: &Invocation, args: &SessionArgs, out: &mut dyn Write) -> anyhow::Result<Outcome> {
    let started = start(inv)?;
    for warning in &started.chain.warnings {
        tracing::warn!("{warning}");
    }
    if let Some(store) = store_for(inv, args.session.as_ref(), args.session_id.as_deref())? {
        let state = started.resolver.state().clone();
        store.update(|_| ((), Some(state)))?;
    }
    if inv.json {
        write_json(out, &started.chain.bundle())?;
    } else {
        out.write_all(started.chain.render().as_bytes())?;
    }
    Ok(Outcome::Success)
}

pub fn resolve(
    inv: &Invocation,
    args: &ResolveArgs,
    out: &mut dyn Write,
) -> anyhow::Result<Outcome> {
    let targets: Vec<PathBuf> = args.paths.iter().map(|p| inv.cwd.join(p)).collect();
    let store = store_for(
        inv,
        args.session.session.as_ref(),
        args.session.session_id.as_deref(),
    )?;
    let found = match store {
        None => start(inv)?.resolver.resolve_for_paths(&targets),
        Some(store) => {
            let agents = &inv.config.config.agents;
            let result = agentctx_core::resolve_in_store(
                &store,
                &inv.cwd,
                agents,
                inv.env.home(),
                &targets,
            )?;
            log_fresh_start(result.rebuilt.as_ref(), result.fresh_warnings.as_deref());
            result.found
        }
    };
    warn_unreadable(&found.files);
    if inv.json {
        write_json(out, &found)?;
    } else {
        out.write_all(render_resolve_paths(&found).as_bytes())?;
    }
    Ok(Outcome::Success)
}

pub fn resume(
    inv: &Invocation,
    args: &RequiredSessionArgs,
    out: &mut dyn Write,
) -> anyhow::Result<Outcome> {
    let store = store_for(inv, args.session.as_ref(), args.session_id.as_deref())?
        .context("session resume needs --session or --session-id")?;
    let resumed = resume_in_store(
        &store,
        &inv.cwd,
        &inv.config.config.agents,
        inv.env.home(),
        true,
    )?;
    log_fresh_start(resumed.rebuilt.as_ref(), resumed.fresh_warnings.as_deref());
    // Nothing to compare with: the session starts here, and says nothing.
    let report = resumed.diff.map(|diff| diff.report()).unwrap_or_default();
    warn_unreadable(&report.recheck);
    if inv.json {
        write_json(out, &report)?;
    } else {
        out.write_all(report.text.as_bytes())?;
    }
    Ok(Outcome::Success)
}

/// An AGENTS.md offered that cannot be read: its instructions are unknown.
fn warn_unreadable(files: &[agentctx_types::ResolvedAgentFile]) {
    for file in files {
        if let Some(why) = &file.unreadable {
            tracing::warn!(
                "{} cannot be read ({why}): its instructions are unknown",
                file.path.display()
            );
        }
    }
}

fn start(inv: &Invocation) -> Result<agentctx_core::StartedSession, CoreError> {
    start_session(&inv.cwd, &inv.config.config.agents, inv.env.home())
}

/// Says why a session started afresh, and what its initial chain warned about.
fn log_fresh_start(
    rebuilt: Option<&agentctx_core::CorruptState>,
    chain_warnings: Option<&[agentctx_core::ChainWarning]>,
) {
    let Some(warnings) = chain_warnings else {
        return;
    };
    match rebuilt {
        Some(corrupt) => tracing::warn!("{corrupt}"),
        None => tracing::info!("no session state yet; starting a fresh session"),
    }
    for warning in warnings {
        tracing::warn!("{warning}");
    }
}

fn store_for(
    inv: &Invocation,
    file: Option<&PathBuf>,
    id: Option<&str>,
) -> Result<Option<SessionStore>, agentctx_session::SessionPlaceError> {
    inv.host()
        .session_store(&inv.cwd, file.map(PathBuf::as_path), id)
}
