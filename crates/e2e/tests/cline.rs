//! Cline CLI beyond the table every agent passes (other_agents.rs): a
//! sub-agent's calls are judged by the same rules, and denials in a row do
//! not end the task (Cline ends one after three turns whose every call
//! failed; agentctx's plugin makes a denial a result); and the attacks of
//! issue 36's pass, run for real: a link made by one call of a turn, and
//! patches Cline reads differently from a plain reading. The real CLI from
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

/// The project of the attacks: a secret under an excluded folder.
fn guarded() -> Sandbox {
    let s = Sandbox::new();
    s.write("AGENTS.md", "ROOT\n");
    s.write("secrets/token.txt", "SECRET-TOKEN-E2E\n");
    s.write(
        ".coding-agent-rules.yaml",
        "file_patterns:\n  exclude: [\"secrets/\"]\n",
    );
    s.commit();
    s
}

#[test]
#[ignore = "needs the real Cline CLI: scripts/e2e"]
fn a_link_made_by_one_call_of_a_turn_does_not_steer_the_others() {
    let s = guarded();
    let link = s.root.join("lnk").display().to_string();
    let plugins = s.root.join("pl").display().to_string();
    let mock = MockApi::start(Script::new().conversation(
        "E2E-CLINE-TURN",
        vec![
            // One turn: the command makes the links; the file tools were
            // judged before it ran (Cline judges a turn's calls first).
            vec![
                Block::tool(
                    "run_commands",
                    json!({"commands": ["ln -s \"$(printf secre)ts/token.txt\" lnk; ln -s \".cli$(printf ne)\" pl"]}),
                ),
                Block::tool("read_files", json!({"files": [{"path": link}]})),
                Block::tool(
                    "editor",
                    json!({"path": format!("{plugins}/plugins/evil.js"), "new_text": "export default {}"}),
                ),
            ],
            vec![Block::text("TURN-DONE")],
        ],
    ));
    s.cline_auth(mock.base_url());
    let install = s.install("cline", &["--user"]);
    assert_eq!(install.code, Some(0), "{}", install.stderr);
    let run = s.cline(&s.root, "E2E-CLINE-TURN go");
    let requests = mock.conversation("E2E-CLINE-TURN");
    let context = format!(
        "{} requests\n{}\n{}",
        requests.len(),
        run.stdout,
        run.stderr
    );
    assert_eq!(requests.len(), 2, "{context}");
    let last = text_of_request(&requests[1]);
    assert!(!last.contains("SECRET-TOKEN-E2E"), "{last}");
    assert!(
        last.contains("not in the same turn as run_commands"),
        "{last}"
    );
    // The command ran, in the sandbox: its links are there.
    assert!(s.root.join("pl").is_symlink(), "{context}");
    assert!(!s.root.join(".cline/plugins/evil.js").exists(), "{context}");
}

#[test]
#[ignore = "needs the real Cline CLI: scripts/e2e"]
fn patches_are_judged_as_cline_reads_them() {
    let s = guarded();
    let mock = MockApi::start(Script::new().conversation(
        "E2E-CLINE-PATCH",
        vec![
            // No envelope: Cline adds it.
            vec![Block::tool(
                "apply_patch",
                json!({"input": "*** Add File: .cline/plugins/evil.js\n+export default {}\n"}),
            )],
            // A byte-order mark JavaScript trims and a plain reading keeps.
            vec![Block::tool(
                "apply_patch",
                json!({"input": "*** Begin Patch\n*** Add File: \u{feff}.clinerules/hooks/PreToolUse\n+#!/bin/sh\n*** End Patch\n"}),
            )],
            // A move out of the excluded folder.
            vec![Block::tool(
                "apply_patch",
                json!({"input": "*** Begin Patch\n*** Update File: secrets/token.txt\n*** Move to: leaked.txt\n@@\n-SECRET-TOKEN-E2E\n+SECRET-TOKEN-E2E\n*** End Patch\n"}),
            )],
            vec![Block::text("PATCH-DONE")],
        ],
    ));
    // A `gpt` model id: Cline gives it `apply_patch`.
    s.cline_auth_model(mock.base_url(), "gpt-e2e-mock");
    let install = s.install("cline", &["--user"]);
    assert_eq!(install.code, Some(0), "{}", install.stderr);
    let run = s.cline(&s.root, "E2E-CLINE-PATCH go");
    let requests = mock.conversation("E2E-CLINE-PATCH");
    let context = format!(
        "{} requests\n{}\n{}",
        requests.len(),
        run.stdout,
        run.stderr
    );
    assert_eq!(requests.len(), 4, "{context}");
    assert!(!s.root.join(".cline/plugins/evil.js").exists(), "{context}");
    assert!(
        !s.root.join(".clinerules/hooks/PreToolUse").exists(),
        "{context}"
    );
    assert!(!s.root.join("leaked.txt").exists(), "{context}");
    assert!(s.root.join("secrets/token.txt").exists(), "{context}");
    let last = text_of_request(&requests[3]);
    assert!(last.contains("exclude pattern `secrets/`"), "{last}");
}
