//! `agentctx mcp`: the MCP server over stdio (agentctx_mcp). stdout is the
//! protocol's: nothing else is written there.

use crate::cli::McpArgs;
use crate::commands::{Invocation, Outcome};

pub fn run(inv: &Invocation, args: &McpArgs) -> anyhow::Result<Outcome> {
    let state = agentctx_mcp::ServerState {
        config: inv.config.config.clone(),
        env: inv.env.clone(),
        cwd: inv.cwd.clone(),
        program: inv.program.clone(),
    };
    let only = args
        .tools
        .clone()
        .or_else(|| agentctx_mcp::tools_from_env(&inv.env));
    agentctx_mcp::run_stdio(state, only.as_deref())?;
    Ok(Outcome::Success)
}
