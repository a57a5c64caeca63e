//! `agentctx mem list|search|show|context|stats|reindex`.

use std::io::Write;

use agentctx_agentmem::{CaptureSource, CaptureStore, Filter, MemoryStore, StoreLocation};
use agentctx_types::{CaptureRecord, CaptureShown};

use crate::cli::{MemCommand, MemFilterArgs};
use crate::commands::{Invocation, Outcome, write_json};

/// Where the configured store is.
pub fn location(inv: &Invocation) -> anyhow::Result<StoreLocation> {
    let cache = inv.env.xdg_dir("XDG_CACHE_HOME", ".cache");
    StoreLocation::from_config(
        &inv.config.config.agentmem,
        inv.env.home().as_deref(),
        cache.as_deref(),
    )
    .ok_or_else(|| anyhow::anyhow!("no memory folder: set AGENTMEM_ROOT or HOME"))
}

/// The store, reconciled with the folder (every read command first does this).
pub fn open(inv: &Invocation) -> anyhow::Result<MemoryStore> {
    let (store, report) = location(inv)?.open()?;
    for (path, reason) in &report.unparsable {
        tracing::debug!("skipped {}: {reason}", path.display());
    }
    // A note, not an error: the answer is whole, only slower.
    if let Some(why) = store.in_memory() {
        tracing::warn!("{why}");
    }
    Ok(store)
}

/// Where captures are read from: the shared store when `agentmem.store`
/// names one, else the memory folder.
pub fn source(inv: &Invocation) -> anyhow::Result<CaptureSource> {
    let env = &inv.env;
    let cache = env.xdg_dir("XDG_CACHE_HOME", ".cache");
    CaptureSource::from_config(
        &inv.config.config.agentmem,
        &|name| env.get(name).map(str::to_owned),
        env.home().as_deref(),
        cache.as_deref(),
    )?
    .ok_or_else(|| anyhow::anyhow!("no memory folder: set AGENTMEM_ROOT or HOME"))
}

/// The store the readers use, ready (the local one reconciled).
fn open_any(inv: &Invocation) -> anyhow::Result<Box<dyn CaptureStore + Send>> {
    let source = source(inv)?;
    if !source.is_shared() {
        return Ok(Box::new(open(inv)?));
    }
    Ok(source.open()?)
}

pub fn filter(args: &MemFilterArgs, inv: &Invocation) -> Filter {
    Filter {
        categories: args.categories.clone(),
        agent: args.agent.clone(),
        source: args.source.clone(),
        project: args
            .project
            .as_ref()
            .map(|p| inv.cwd.join(p).display().to_string()),
        since: args.since.clone(),
        until: args.until.clone(),
        limit: args.limit.unwrap_or(0),
        scope: args.this_project.then(|| this_project(inv)),
    }
}

/// The identity of the working directory's project under the config.
fn identity_here(inv: &Invocation) -> agentctx_types::ProjectIdentity {
    let cache = inv.env.xdg_dir("XDG_CACHE_HOME", ".cache");
    let options =
        agentctx_agentmem::identity_options(&inv.config.config.agentmem, cache.as_deref());
    agentctx_agentmem::identify(&inv.cwd, &options)
}

/// The captures a session in the working directory recalls from.
fn this_project(inv: &Invocation) -> agentctx_agentmem::Scope {
    let memory = &inv.config.config.agentmem;
    agentctx_agentmem::Scope::of(
        &identity_here(inv),
        &memory.identities,
        &memory.recall.also,
        inv.env.home().as_deref(),
    )
}

/// Whether any filter flag narrows the captures (an empty answer then
/// says so).
fn filtered(args: &MemFilterArgs) -> bool {
    let MemFilterArgs {
        categories,
        agent,
        source,
        project,
        since,
        until,
        limit: _,
        this_project,
    } = args;
    !categories.is_empty()
        || agent.is_some()
        || source.is_some()
        || project.is_some()
        || since.is_some()
        || until.is_some()
        || *this_project
}

/// `2026-01-25 09:12 IMPLEMENTATION engineer  fixed-auth-race  path`
fn line(record: &CaptureRecord) -> String {
    let short_time: String = record.time.chars().take(16).collect();
    let description = record
        .id
        .rsplit_once('_')
        .map_or(record.id.as_str(), |(_, d)| d);
    format!(
        "{short_time} {:<14} {:<12} {description}  {}",
        record.category,
        record.agent,
        record.path.display()
    )
}

pub fn run(inv: &Invocation, command: &MemCommand, out: &mut dyn Write) -> anyhow::Result<Outcome> {
    match command {
        MemCommand::Capture(args) => return crate::commands::mem::capture(inv, args, out),
        #[cfg(feature = "viewer")]
        MemCommand::Serve(args) => return crate::commands::serve::run(inv, args, out),
        #[cfg(feature = "postgres")]
        MemCommand::Migrate => return crate::commands::memshared::run_migrate(inv, out),
        #[cfg(feature = "postgres")]
        MemCommand::Sync(args) => return crate::commands::memshared::run_sync(inv, args, out),
        MemCommand::List(args) => {
            let records = open_any(inv)?.list(&filter(args, inv))?;
            if inv.json {
                write_json(out, &records)?;
            } else if records.is_empty() {
                inv.note(if filtered(args) {
                    "no captures match these filters"
                } else {
                    "no captures"
                });
            } else {
                for record in &records {
                    writeln!(out, "{}", line(record))?;
                }
            }
        }
        MemCommand::Search(args) => {
            let hits = open_any(inv)?.search(&args.query, &filter(&args.filter, inv))?;
            if inv.json {
                write_json(out, &hits)?;
            } else if hits.is_empty() {
                let among = if filtered(&args.filter) {
                    " among the captures these filters keep"
                } else {
                    ""
                };
                inv.note(&format!("no matches for {:?}{among}", args.query));
            } else {
                for hit in &hits {
                    writeln!(
                        out,
                        "{}\n    {}",
                        line(&hit.record),
                        hit.snippet.replace('\n', " ")
                    )?;
                }
            }
        }
        MemCommand::Show(args) if source(inv)?.is_shared() => {
            let mut store = open_any(inv)?;
            let record = store.find(&args.id)?;
            let text = store.document(&record)?;
            if inv.json {
                write_json(out, &CaptureShown { record, text })?;
            } else {
                out.write_all(text.as_bytes())?;
            }
        }
        MemCommand::Show(args) => {
            // The index as it stands finds a capture named exactly whose
            // file is there (fetch by id stays fast); anything else (a
            // prefix a newer capture may share) reconciles first.
            let mut store = location(inv)?.open_unreconciled()?;
            let exact = |r: &CaptureRecord| {
                r.id == args.id
                    || agentctx_agentmem::short_id(&r.id) == args.id
                    || r.path == std::path::Path::new(&args.id)
            };
            let record = match store.find(&args.id) {
                Ok(record) if exact(&record) && record.path.is_file() => record,
                _ => {
                    store.reconcile()?;
                    store.find(&args.id)?
                }
            };
            // Through the interface: only the folder's own files are read.
            let text = agentctx_agentmem::CaptureStore::document(&mut store, &record)?;
            if inv.json {
                write_json(out, &CaptureShown { record, text })?;
            } else {
                out.write_all(text.as_bytes())?;
            }
        }
        MemCommand::Context(args) => {
            let mut store = open_any(inv)?;
            let mut f = Filter {
                limit: 20,
                ..Filter::default()
            };
            f.project = args
                .project
                .as_ref()
                .map(|p| inv.cwd.join(p).display().to_string());
            f.scope = args.this_project.then(|| this_project(inv));
            let block = store.context(
                &args.query,
                &f,
                args.max_tokens,
                &agentctx_context::O200kCounter,
                jiff::Zoned::now().date(),
            )?;
            if inv.json {
                write_json(out, &block)?;
            } else {
                out.write_all(block.text.as_bytes())?;
            }
        }
        MemCommand::Index(args) => {
            let mut recall = inv.config.config.agentmem.recall.clone();
            if let Some(n) = args.max_tokens {
                recall.max_tokens = n;
            }
            let mut notes = Vec::new();
            let index = agentctx_context::memory_index(
                &inv.host(),
                &inv.cwd,
                &recall,
                jiff::Zoned::now().date(),
                &mut notes,
            )?;
            for note in &notes {
                tracing::info!("{note}");
            }
            if inv.json {
                write_json(out, &index)?;
            } else {
                out.write_all(index.text.as_bytes())?;
            }
        }
        MemCommand::Identity => {
            let identity = identity_here(inv);
            if inv.json {
                write_json(out, &identity)?;
            } else {
                for (key, value) in [
                    ("repository", identity.remote.as_str()),
                    ("root_commit", &identity.root_commit),
                    ("name", &identity.name),
                    ("top", &identity.top.to_string_lossy()),
                    ("package", &identity.package),
                ] {
                    if !value.is_empty() {
                        writeln!(out, "{key}: {value}")?;
                    }
                }
            }
        }
        MemCommand::Stats => {
            let stats = open_any(inv)?.stats()?;
            if inv.json {
                write_json(out, &stats)?;
            } else {
                writeln!(
                    out,
                    "{} captures, {} bytes; index {} bytes",
                    stats.total, stats.captures_bytes, stats.index_bytes
                )?;
                for (title, map) in [
                    ("category", &stats.by_category),
                    ("agent", &stats.by_agent),
                    ("month", &stats.by_month),
                ] {
                    writeln!(out, "by {title}:")?;
                    for (key, count) in map {
                        writeln!(out, "  {key:<20} {count}")?;
                    }
                }
            }
        }
        MemCommand::Reindex => {
            let report = MemoryStore::open(&location(inv)?.root)?.rebuild()?;
            writeln!(out, "indexed {} captures", report.added)?;
            for (path, reason) in &report.unparsable {
                writeln!(out, "skipped {}: {reason}", path.display())?;
            }
        }
    }
    Ok(Outcome::Success)
}
