//! The shared PostgreSQL store (`agentmem.store`): `mem migrate`,
//! `mem sync` (the readers reach it through `CaptureSource`; see
//! `agentctx_agentmem::pg`).

use std::io::Write;

use agentctx_agentmem::pg::{
    PgSettings, SearchIndex, backfill, connect, migrate, search_index, sync,
};

use crate::commands::{Invocation, Outcome};

/// The configured shared store, if any.
pub fn settings(inv: &Invocation) -> anyhow::Result<Option<PgSettings>> {
    let env = &inv.env;
    Ok(PgSettings::from_config(
        &inv.config.config.agentmem,
        &|name| env.get(name).map(str::to_owned),
        env.home().as_deref(),
    )?)
}

fn required(inv: &Invocation) -> anyhow::Result<PgSettings> {
    settings(inv)?.ok_or_else(|| {
        anyhow::anyhow!("no shared store: set agentmem.store (postgres://...) in your user config or AGENTMEM_STORE")
    })
}

/// `mem migrate`.
pub fn run_migrate(inv: &Invocation, out: &mut dyn Write) -> anyhow::Result<Outcome> {
    let settings = required(inv)?;
    let mut client = connect(&settings)?;
    let applied = migrate(&mut client, &settings.target())?;
    if applied.is_empty() {
        writeln!(
            out,
            "{}: schema version {} (nothing to do)",
            settings.target(),
            agentctx_agentmem::pg::SCHEMA_VERSION
        )?;
    } else {
        for version in applied {
            writeln!(out, "{}: applied migration {version}", settings.target())?;
        }
    }
    match search_index(&mut client, &settings.target())? {
        SearchIndex::Rum => writeln!(
            out,
            "{}: phrases are searched with the RUM index",
            settings.target()
        )?,
        SearchIndex::Gin => writeln!(
            out,
            "{}: no RUM index: a phrase is checked row by row, slow at a million captures; install the server's rum extension (Debian: postgresql-<major>-rum) and run `agentctx mem migrate` again",
            settings.target()
        )?,
    }
    Ok(Outcome::Success)
}

/// `mem sync [--all]`.
pub fn run_sync(
    inv: &Invocation,
    args: &crate::cli::SyncArgs,
    out: &mut dyn Write,
) -> anyhow::Result<Outcome> {
    let settings = required(inv)?;
    let location = crate::commands::memstore::location(inv)?;
    let mut report = sync(&settings, &location.root)?;
    if args.all && report.stopped.is_none() && location.root.is_dir() {
        let (store, _) = location.open()?;
        let files: Vec<std::path::PathBuf> = store
            .list(&agentctx_agentmem::Filter::default())?
            .into_iter()
            .map(|r| r.path)
            .collect();
        let more = backfill(&settings, &files)?;
        report.sent += more.sent;
        report.already_there += more.already_there;
        report.dropped += more.dropped;
        report.waiting += more.waiting;
        report.stopped = more.stopped;
    }
    writeln!(
        out,
        "{}: {} sent, {} already there, {} dropped (file gone), {} waiting",
        settings.target(),
        report.sent,
        report.already_there,
        report.dropped,
        report.waiting
    )?;
    match report.stopped {
        Some(why) => {
            writeln!(out, "stopped: {why}")?;
            Ok(Outcome::Status(1))
        }
        None => Ok(Outcome::Success),
    }
}
