//! `agentctx mcp`: the MCP server over stdio (stdout is the protocol's:
//! nothing else is written there) or streamable HTTP on 127.0.0.1.

use crate::cli::McpArgs;
use crate::commands::{Invocation, Outcome};

pub fn run(inv: &Invocation, args: &McpArgs) -> anyhow::Result<Outcome> {
    let state = agentctx_mcp::ServerState {
        config: inv.config.config.clone(),
        env: inv.env.clone(),
        cwd: inv.cwd.clone(),
        program: inv.program.clone(),
        api_url: args.api_url.clone(),
    };
    let only = args
        .tools
        .clone()
        .or_else(|| agentctx_mcp::tools_from_env(&inv.env));
    if args.http {
        agentctx_mcp::run_http(state, only.as_deref(), args.port, |address| {
            use std::io::Write as _;
            let mut out = std::io::stdout();
            let _ = writeln!(out, "listening on http://{address}/");
            let _ = out.flush();
        })?;
    } else {
        agentctx_mcp::run_stdio(state, only.as_deref())?;
    }
    Ok(Outcome::Success)
}
