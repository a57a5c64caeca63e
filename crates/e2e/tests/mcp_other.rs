//! `agentctx mcp` in opencode, GitHub Copilot CLI, Qwen Code and Cline CLI (against
//! the mock's Chat Completions API) and Gemini CLI (against its
//! `streamGenerateContent`), beside agentctx's hooks: asking `rules_check`
//! about an excluded file is answered, not denied as a read. Each test
//! registers the server with `agentctx install <agent> --mcp`, runs the
//! real CLI with a scripted model that calls `agents_resolve` and
//! `rules_check` under the agent's own name for MCP tools, asserts on what
//! the model was sent back, then uninstalls and checks the agent's config
//! is byte for byte what it was. Run with `scripts/e2e`.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests fail loudly")]

use std::path::PathBuf;

use agentctx_e2e::{AgentRun, Block, MockApi, Sandbox, Script, text_of_request};
use serde_json::json;

/// One agent's part of the scenario.
struct Agent {
    /// `agentctx install` name.
    name: &'static str,
    /// The name the agent gives the MCP tool `tool` of server `agentctx`.
    tool: fn(&str) -> String,
    /// Its user config, where install registers the server.
    config: fn(&Sandbox) -> PathBuf,
    /// Writes what it needs to reach the mock (before install).
    setup: fn(&Sandbox, &MockApi),
    /// Runs it in the project root with a prompt.
    run: fn(&Sandbox, &MockApi, &str) -> AgentRun,
}

/// A project whose rules mask `secrets/`, with a nested AGENTS.md.
fn project() -> Sandbox {
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
    s
}

/// The scenario: install, a session calling both tools, uninstall. Returns
/// the model's requests.
fn calls_agents_resolve_and_rules_check(agent: &Agent) -> Vec<serde_json::Value> {
    let s = project();
    let marker = format!("E2E-MCP:{}", agent.name);
    let mock = MockApi::start(Script::new().conversation(
        &marker,
        vec![
            vec![Block::tool(
                &(agent.tool)("agents_resolve"),
                json!({"paths": ["packages/api/src/main.rs"]}),
            )],
            vec![Block::tool(
                &(agent.tool)("rules_check"),
                json!({"path": "secrets/key.txt"}),
            )],
            vec![Block::text("MCP-DONE")],
        ],
    ));
    (agent.setup)(&s, &mock);
    let config = (agent.config)(&s);
    let before = std::fs::read(&config).ok();
    let install = s.install(agent.name, &["--mcp"]);
    assert_eq!(install.code, Some(0), "{}", install.stderr);
    let installed = std::fs::read(&config).unwrap();
    assert!(String::from_utf8_lossy(&installed).contains("agentctx"));

    let run = (agent.run)(&s, &mock, &format!("{marker} go"));
    assert_eq!(run.code, Some(0), "{}\n{}", run.stdout, run.stderr);
    let requests = mock.conversation(&marker);
    assert!(
        requests.len() >= 3,
        "{} requests\n{}\n{}",
        requests.len(),
        run.stdout,
        run.stderr
    );
    let first = text_of_request(&requests[0]);
    let last = text_of_request(requests.last().unwrap());
    for expected in [
        "packages/api/AGENTS.md (mtime: ",
        "Denied: reading `secrets/key.txt`",
        "exclude pattern `secrets/`",
    ] {
        assert!(!first.contains(expected), "{expected} before any call");
        assert!(last.contains(expected), "{expected} not sent:\n{last}");
    }

    // Uninstall: the file as it was when the agent left it as install did;
    // else (Qwen Code adds `$version` to its settings) only our entry goes.
    let ran = std::fs::read(&config).unwrap();
    let uninstall = s.agentctx(&s.root, &["uninstall", agent.name]);
    assert_eq!(uninstall.code, Some(0), "{}", uninstall.stderr);
    let after = std::fs::read(&config).ok();
    if ran == installed {
        assert_eq!(after, before, "{} not restored", config.display());
    } else {
        let mut expected: serde_json::Value = serde_json::from_slice(&ran).unwrap();
        for key in ["mcpServers", "mcp"] {
            if let Some(servers) = expected.get_mut(key).and_then(|v| v.as_object_mut()) {
                servers.remove("agentctx");
                if servers.is_empty() {
                    expected.as_object_mut().unwrap().remove(key);
                }
            }
        }
        let after: serde_json::Value = serde_json::from_slice(&after.unwrap()).unwrap();
        assert_eq!(after, expected, "{}", config.display());
    }
    requests
}

#[test]
#[ignore = "needs the real opencode: scripts/e2e"]
fn opencode_calls_agents_resolve_and_rules_check_through_mcp() {
    let requests = calls_agents_resolve_and_rules_check(&Agent {
        name: "opencode",
        tool: |tool| format!("agentctx_{tool}"),
        config: Sandbox::opencode_config_path,
        setup: |s, mock| s.opencode_config(mock.base_url()),
        run: |s, _, prompt| s.opencode(&s.root, prompt),
    });
    // opencode puts the server's instructions in its system prompt.
    assert!(text_of_request(&requests[0]).contains("Call `context` once"));
}

#[test]
#[ignore = "needs the real Copilot CLI: scripts/e2e"]
fn copilot_calls_agents_resolve_and_rules_check_through_mcp() {
    let requests = calls_agents_resolve_and_rules_check(&Agent {
        name: "copilot",
        tool: |tool| format!("agentctx-{tool}"),
        config: |s| s.home.join(".copilot/mcp-config.json"),
        setup: |_, _| {},
        run: |s, mock, prompt| s.copilot(mock.base_url(), &s.root, prompt, &[]),
    });
    // Copilot shows the instructions only of servers it allowlists (its
    // --help: --allow-all-mcp-server-instructions includes every server's).
    assert!(!text_of_request(&requests[0]).contains("Call `context` once"));
}

#[test]
#[ignore = "needs the real Gemini CLI: scripts/e2e"]
fn gemini_calls_agents_resolve_and_rules_check_through_mcp() {
    let requests = calls_agents_resolve_and_rules_check(&Agent {
        name: "gemini",
        tool: |tool| format!("mcp_agentctx_{tool}"),
        config: |s| s.home.join(".gemini/settings.json"),
        setup: |s, _| s.gemini_settings(),
        run: |s, mock, prompt| s.gemini(mock.base_url(), &s.root, prompt),
    });
    // Gemini CLI puts the server's instructions in its system instruction.
    assert!(text_of_request(&requests[0]).contains("Call `context` once"));
}

#[test]
#[ignore = "needs the real Qwen Code: scripts/e2e"]
fn qwen_calls_agents_resolve_and_rules_check_through_mcp() {
    let requests = calls_agents_resolve_and_rules_check(&Agent {
        name: "qwen",
        tool: |tool| format!("mcp__agentctx__{tool}"),
        config: |s| s.home.join(".qwen/settings.json"),
        setup: |s, _| s.qwen_settings(),
        run: |s, mock, prompt| s.qwen(mock.base_url(), &s.root, prompt),
    });
    // Qwen Code does not show a server's instructions to the model.
    assert!(!text_of_request(&requests[0]).contains("Call `context` once"));
}

#[test]
#[ignore = "needs the real Cline CLI: scripts/e2e"]
fn cline_calls_agents_resolve_and_rules_check_through_mcp() {
    let requests = calls_agents_resolve_and_rules_check(&Agent {
        name: "cline",
        tool: |tool| format!("agentctx__{tool}"),
        config: |s| s.home.join(".cline/data/settings/cline_mcp_settings.json"),
        setup: |s, mock| s.cline_auth(mock.base_url()),
        run: |s, _, prompt| s.cline(&s.root, prompt),
    });
    // Cline CLI does not show a server's instructions to the model.
    assert!(!text_of_request(&requests[0]).contains("Call `context` once"));
}
