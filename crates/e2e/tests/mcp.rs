//! `agentctx mcp` used by a real agent: Claude Code (the pinned release)
//! with the server in its MCP config and no agentctx hooks, against the
//! mock model API. The scripted model calls `agents_resolve` and
//! `rules_check`; the test asserts on what the model was sent back.
//! Run with `scripts/e2e`. The same with Gemini CLI, opencode, Copilot CLI
//! and Qwen Code, each registered by `install --mcp`: `mcp_other.rs`.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests fail loudly")]

use agentctx_e2e::{Block, MockApi, Sandbox, Script, agentctx_bin, text_of_request};
use serde_json::{Value, json};

/// The tool results the model got, in order.
fn tool_results(request: &Value) -> Vec<String> {
    let mut out = Vec::new();
    for message in request["messages"].as_array().into_iter().flatten() {
        for block in message["content"].as_array().into_iter().flatten() {
            if block["type"] == "tool_result" {
                out.push(text_of_request(
                    &json!({"messages": [{"role": "user", "content": block["content"].clone()}]}),
                ));
            }
        }
    }
    out
}

#[test]
#[ignore = "needs the real Claude Code: scripts/e2e"]
fn claude_code_calls_agents_resolve_and_rules_check_through_mcp() {
    let s = Sandbox::new();
    s.write("AGENTS.md", "ROOT\n");
    s.write("packages/api/AGENTS.md", "API-RULES\n");
    s.write("packages/api/src/main.rs", "fn main() {}\n");
    s.write("secrets/key.txt", "SECRET\n");
    s.write(
        ".coding-agent-rules.yaml",
        "file_patterns:\n  exclude: [\"secrets/\"]\n",
    );
    s.commit();
    let config = s.path().join("mcp.json");
    std::fs::write(
        &config,
        json!({"mcpServers": {"agentctx": {"command": agentctx_bin(), "args": ["mcp"]}}})
            .to_string(),
    )
    .unwrap();
    let mock = MockApi::start(Script::new().conversation(
        "E2E-MCP:one",
        vec![
            vec![Block::tool(
                "mcp__agentctx__agents_resolve",
                json!({"paths": ["packages/api/src/main.rs"]}),
            )],
            vec![Block::tool(
                "mcp__agentctx__rules_check",
                json!({"path": "secrets/key.txt"}),
            )],
            vec![Block::text("MCP-DONE")],
        ],
    ));
    let run = s.claude(
        mock.base_url(),
        &s.root,
        "E2E-MCP:one go",
        &[
            "--mcp-config",
            config.to_str().unwrap(),
            "--strict-mcp-config",
        ],
    );
    assert_eq!(run.code, Some(0), "{}\n{}", run.stdout, run.stderr);
    let requests = mock.conversation("E2E-MCP:one");
    assert!(requests.len() >= 3, "{} requests", requests.len());
    // (2.1.330 lists MCP tools behind its ToolSearch placeholder; a call
    // by name runs all the same.)
    let results = tool_results(requests.last().unwrap());
    assert!(
        results
            .iter()
            .any(|r| r.contains("packages/api/AGENTS.md (mtime: ")),
        "{results:?}"
    );
    assert!(
        results
            .iter()
            .any(|r| r.contains("Denied: reading `secrets/key.txt`")),
        "{results:?}"
    );
}
