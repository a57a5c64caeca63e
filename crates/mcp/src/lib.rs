//! agentctx as an MCP server (`agentctx mcp`): for agents without hooks,
//! and for agents people build, the same context and checks the hooks give
//! Claude Code and Codex, as a few tools: `context`, `agents_resolve`,
//! `rules_check`, `files`, `mem_search`, `mem_get`, `mem_context`,
//! `mem_save`, `output_get`. Every answer is text within a token budget
//! (default 8,000 o200k tokens), whole lines, byte-stable; a longer one
//! ends with a line `[agentctx: ... call again with cursor=N for more]`.
//!
//! ```no_run
//! use agentctx_mcp::{ServerState, run_stdio};
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let state = ServerState {
//!     config: agentctx_types::Config::default(),
//!     env: agentctx_config::Environment::from_process(),
//!     cwd: std::env::current_dir()?,
//!     program: None,
//!     api_url: None,
//! };
//! run_stdio(state, None)?; // serves until stdin closes
//! # Ok(())
//! # }
//! ```
#![deny(missing_docs)]

mod page;
mod tools;

use std::path::PathBuf;
use std::sync::Arc;

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::model::{ServerCapabilities, ServerConfig};
use rmcp::{ServerHandler, ServiceExt, tool_handler};

pub use page::page;

/// The tools, in the order they are listed.
pub const TOOLS: [&str; 9] = [
    "context",
    "agents_resolve",
    "rules_check",
    "files",
    "mem_search",
    "mem_get",
    "mem_context",
    "mem_save",
    "output_get",
];

/// What the server teaches the model about its tools.
const INSTRUCTIONS: &str = "agentctx gives the context of the project you work in and keeps you inside its rules.\n\
1. Call `context` once at the start: the project's rules, its AGENTS.md instructions, its file list and an index of past work. Follow the instructions in it.\n\
2. Before you read or write files in a folder, call `agents_resolve` with those paths: it names AGENTS.md files that are new or changed for them (read each one before you work there); it names each file once per session.\n\
3. Before you run a tool or touch a path you are unsure of, call `rules_check`: it says whether the project's rules allow it, and which rule says no.\n\
4. `mem_search` and `mem_get` find and read work captured in earlier sessions of this project (the index in `context` lists ids); `mem_save` keeps a finding for later sessions.\n\
5. A long answer ends with `call again with cursor=N`: pass that cursor to get the rest. `output_get` returns the part of a tool output that a `tool.output.trimmed` reminder names by id.";

/// Why the server stopped.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    /// The async runtime could not start.
    #[error("cannot start the server's runtime: {0}")]
    Runtime(#[source] std::io::Error),
    /// The MCP session failed to start or ended with an error.
    #[error("MCP session: {0}")]
    Session(String),
    /// A tool named in the filter does not exist.
    #[error("unknown tool {name:?} (the tools are {})", TOOLS.join(", "))]
    UnknownTool {
        /// The name given.
        name: String,
    },
}

/// What every tool call works with.
#[derive(Clone, Debug)]
pub struct ServerState {
    /// The effective config (the server's working folder's).
    pub config: agentctx_types::Config,
    /// The process environment.
    pub env: agentctx_config::Environment,
    /// The folder paths are taken against.
    pub cwd: PathBuf,
    /// The agentctx program (named in the memory index's instructions).
    pub program: Option<PathBuf>,
    /// The API base for `github:`/`gitlab:` remotes (GitHub Enterprise, a
    /// self-hosted GitLab); `None`: the public ones.
    pub api_url: Option<String>,
}

/// The MCP server.
#[derive(Clone)]
pub struct ContextServer {
    tool_router: ToolRouter<Self>,
    state: Arc<ServerState>,
    /// Where captures are read from, decided once for the server's life
    /// (clones share the shared store's connections), or why there is none.
    memory: Arc<Result<agentctx_agentmem::CaptureSource, String>>,
    /// The id of this MCP session's resolver state.
    session: Arc<String>,
}

impl ContextServer {
    /// A server with every tool, or only those `only` names.
    ///
    /// # Errors
    /// [`ServeError::UnknownTool`] for a name that is not a tool.
    pub fn new(state: ServerState, only: Option<&[String]>) -> Result<Self, ServeError> {
        let mut tool_router = Self::tool_router();
        if let Some(only) = only {
            if let Some(name) = only.iter().find(|n| !TOOLS.contains(&n.as_str())) {
                return Err(ServeError::UnknownTool { name: name.clone() });
            }
            for tool in TOOLS {
                if !only.iter().any(|n| n == tool) {
                    tool_router.remove_route(tool);
                }
            }
        }
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        let cache = state.env.xdg_dir("XDG_CACHE_HOME", ".cache");
        let env = &state.env;
        let memory = agentctx_agentmem::CaptureSource::from_config(
            &state.config.agentmem,
            &|name| env.get(name).map(str::to_owned),
            env.home().as_deref(),
            cache.as_deref(),
        )
        .map_err(|e| e.to_string())
        .and_then(|s| s.ok_or_else(|| "no memory folder (set AGENTMEM_ROOT or HOME)".to_owned()));
        Ok(Self {
            tool_router,
            memory: Arc::new(memory),
            state: Arc::new(state),
            session: Arc::new(format!("mcp-{}-{nanos}", std::process::id())),
        })
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for ContextServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_instructions(INSTRUCTIONS)
    }
}

/// The tool filter from `AGENTCTX_MCP_TOOLS` (`context,rules_check`), when set.
pub fn tools_from_env(env: &agentctx_config::Environment) -> Option<Vec<String>> {
    env.get("AGENTCTX_MCP_TOOLS").map(|list| {
        list.split(',')
            .map(str::trim)
            .filter(|t| !t.is_empty())
            .map(str::to_owned)
            .collect()
    })
}

/// Serves MCP over streamable HTTP on 127.0.0.1 (`port` 0 picks a free
/// one) until the process ends, at `http://127.0.0.1:PORT/`. Only requests
/// whose `Host` is `127.0.0.1:PORT` or `localhost:PORT` are answered (a web
/// page cannot reach it by rebinding a name of its own to 127.0.0.1).
/// `on_listening` gets the bound address.
///
/// # Errors
/// The runtime cannot start, the port cannot be bound, a tool name in
/// `only` is unknown.
pub fn run_http(
    state: ServerState,
    only: Option<&[String]>,
    port: u16,
    on_listening: impl FnOnce(std::net::SocketAddr),
) -> Result<(), ServeError> {
    use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
    use rmcp::transport::streamable_http_server::{
        StreamableHttpServerConfig, StreamableHttpService,
    };
    let server = ContextServer::new(state, only)?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(ServeError::Runtime)?;
    runtime.block_on(async move {
        let listener = tokio::net::TcpListener::bind((std::net::Ipv4Addr::LOCALHOST, port))
            .await
            .map_err(ServeError::Runtime)?;
        let address = listener.local_addr().map_err(ServeError::Runtime)?;
        on_listening(address);
        let mut config = StreamableHttpServerConfig::default();
        config.allowed_hosts = vec![
            format!("127.0.0.1:{}", address.port()),
            format!("localhost:{}", address.port()),
        ];
        let service = StreamableHttpService::new(
            move || Ok(server.clone()),
            Arc::new(LocalSessionManager::default()),
            config,
        );
        loop {
            let (stream, _) = listener.accept().await.map_err(ServeError::Runtime)?;
            let service = hyper_util::service::TowerToHyperService::new(service.clone());
            tokio::spawn(async move {
                // A connection that fails ends alone.
                let _ = hyper::server::conn::http1::Builder::new()
                    .serve_connection(hyper_util::rt::TokioIo::new(stream), service)
                    .await;
            });
        }
    })
}

/// Serves MCP over stdin and stdout until the client closes them.
///
/// # Errors
/// The runtime cannot start, a tool name in `only` is unknown, or the
/// session fails.
pub fn run_stdio(state: ServerState, only: Option<&[String]>) -> Result<(), ServeError> {
    let server = ContextServer::new(state, only)?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(ServeError::Runtime)?;
    runtime.block_on(async move {
        let running = server
            .serve(rmcp::transport::stdio())
            .await
            .map_err(|e| ServeError::Session(e.to_string()))?;
        running
            .waiting()
            .await
            .map_err(|e| ServeError::Session(e.to_string()))?;
        Ok(())
    })
}
