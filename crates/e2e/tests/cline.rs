//! Cline CLI beyond the table every agent passes (other_agents.rs): a
//! sub-agent's calls are judged by the same rules, and denials in a row do
//! not end the task (Cline ends one after three turns whose every call
//! failed; agentctx's plugin makes a denial a result). The real CLI from
//! npm against the mock's Chat Completions API. Run with `scripts/e2e`.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests fail loudly")]

use agentctx_e2e::{Block, MockApi, Sandbox, Script, text_of_request};
use serde_json::json;

#[test]
#[ignore = "needs the real Cline CLI: scripts/e2e"]
fn a_sub_agents_calls_are_judged_and_denials_in_a_row_do_not_end_the_task() {
    let s = Sandbox::new();
    s.write("AGENTS.md", "ROOT\n");
    s.write("secrets/token.txt", "SECRET-TOKEN-E2E\n");
    s.write(
        ".coding-agent-rules.yaml",
        "denied_tools: [Grep]\nfile_patterns:\n  exclude: [\"secrets/\"]\n",
    );
    s.commit();
    let secret = s.root.join("secrets/token.txt").display().to_string();
    let mock = MockApi::start(
        Script::new()
            .conversation(
                "E2E-CLINE-MAIN",
                vec![
                    vec![Block::tool(
                        "spawn_agent",
                        json!({"systemPrompt": "You are a helper.", "task": "E2E-CLINE-SUB look"}),
                    )],
                    vec![Block::text("MAIN-DONE")],
                ],
            )
            .conversation(
                "E2E-CLINE-SUB",
                vec![
                    vec![Block::tool("read_files", json!({"file_paths": [secret]}))],
                    vec![Block::tool(
                        "run_commands",
                        json!({"commands": [{"command": "cat", "args": [secret]}]}),
                    )],
                    vec![Block::tool(
                        "search_codebase",
                        json!({"queries": ["SECRET"]}),
                    )],
                    vec![Block::tool(
                        "run_commands",
                        json!({"commands": ["echo 'x", "cat secrets/token.txt #'"]}),
                    )],
                    vec![Block::text("SUB-DONE")],
                ],
            ),
    );
    s.cline_auth(mock.base_url());
    let install = s.install("cline", &["--user"]);
    assert_eq!(install.code, Some(0), "{}", install.stderr);
    let run = s.cline(&s.root, "E2E-CLINE-MAIN go");
    let sub = mock.conversation("E2E-CLINE-SUB");
    let context = format!("{} sub requests\n{}\n{}", sub.len(), run.stdout, run.stderr);
    assert_eq!(sub.len(), 5, "{context}");
    let last = text_of_request(sub.last().unwrap());
    assert!(!last.contains("SECRET-TOKEN-E2E"), "{last}");
    for expected in [
        "exclude pattern `secrets/`",
        "denied_tools entry `Grep`",
        "not a whole command line by itself",
    ] {
        assert!(last.contains(expected), "{expected}\n{last}");
    }
    // The task went on to the end: the main agent's last turn ran.
    let main = mock.conversation("E2E-CLINE-MAIN");
    assert_eq!(main.len(), 2, "{context}");
    assert!(
        run.stdout.contains("\"finishReason\":\"completed\""),
        "{context}"
    );
}
