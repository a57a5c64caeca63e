//! The end-to-end suite's tools: a mock of the Anthropic Messages API on
//! 127.0.0.1 that answers from a script and records what the model was
//! sent, a sandbox (scratch HOME and project) and runners for the real
//! agent CLIs installed by `scripts/e2e`.
//!
//! The suite itself is `tests/claude_code.rs`; its tests are `#[ignore]`d
//! in `cargo test --workspace` (they need the agents) and run by
//! `scripts/e2e`, which installs the pinned agents first and fails when it
//! cannot.
#![deny(missing_docs)]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test tooling: a broken fixture must fail the test loudly"
)]

pub mod attack;
mod cline;
mod mock;
mod other_agents;
mod sandbox;
mod web;

pub use cline::cline_bin;
pub use mock::{Block, MockApi, Recorded, Script, text_of_request, tool_results_text};
pub use other_agents::{copilot_bin, gemini_bin, opencode_bin, qwen_bin};
pub use sandbox::{
    AgentRun, Sandbox, agentctx_bin, claude_bin, claude_eras, claude_releases, codex_bin, e2e_bin,
    version_tuple, workspace_root,
};
pub use web::web_server;
