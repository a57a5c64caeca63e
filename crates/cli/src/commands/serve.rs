//! `agentctx mem serve`: see `agentctx_viewer`.

use std::io::Write;

use crate::cli::ServeArgs;
use crate::commands::{Invocation, Outcome};

/// Requests answered at once; connections are read on threads of their own.
const WORKERS: usize = 4;

pub fn run(inv: &Invocation, args: &ServeArgs, out: &mut dyn Write) -> anyhow::Result<Outcome> {
    let address = args.bind.as_deref().unwrap_or("127.0.0.1");
    let events =
        agentctx_agentmem::events_path(&inv.config.config.agentmem, inv.env.home().as_deref());
    let server = agentctx_viewer::Server::bind(
        crate::commands::memstore::source(inv)?,
        events,
        address,
        args.port,
    )?;
    writeln!(out, "listening on http://{}/", server.local_addr())?;
    out.flush()?;
    server.run(WORKERS)?;
    Ok(Outcome::Success)
}
