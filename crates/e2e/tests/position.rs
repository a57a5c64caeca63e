//! `file_list_context.position` with the real agents, asserting where the
//! model was sent the file list: Codex gets it before the first prompt
//! (`system_prompt`, the default) or after it (`user_message`, the
//! `UserPromptSubmit` hook), once; Claude Code places every hook's context
//! in a `system` message, so it gets it at SessionStart either way.
//! Run with `scripts/e2e`.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests fail loudly")]

use agentctx_e2e::{Block, MockApi, Sandbox, Script, text_of_request};
use serde_json::{Value, json};

/// A project whose hooks read `.agentctx.yaml` with the file list at `position`.
fn project(position: &str) -> Sandbox {
    let s = Sandbox::new();
    s.write("src/main.rs", "fn main() {}\n");
    s.write("README.md", "position\n");
    s.write(
        ".agentctx.yaml",
        &format!("file_list_context:\n  position: {position}\n"),
    );
    s.commit();
    s
}

/// Where in a request `needle` is: `system`, or the index and role of each
/// message (`messages` for Claude Code, `input` for Codex) that holds it.
fn places(request: &Value, needle: &str) -> Vec<String> {
    let mut found = Vec::new();
    let system = text_of_request(&json!({"system": request["system"].clone()}));
    let instructions = request["instructions"].as_str().unwrap_or_default();
    if system.contains(needle) || instructions.contains(needle) {
        found.push("system".to_owned());
    }
    let items = request["messages"]
        .as_array()
        .or(request["input"].as_array())
        .cloned()
        .unwrap_or_default();
    for (at, item) in items.iter().enumerate() {
        if text_of_request(&json!({"messages": [item]})).contains(needle) {
            found.push(format!("{at}:{}", item["role"].as_str().unwrap_or("?")));
        }
    }
    found
}

/// The index of the first message that holds `needle` (Codex's `input`).
fn first_at(request: &Value, needle: &str) -> usize {
    places(request, needle)
        .iter()
        .find_map(|p| p.split(':').next()?.parse().ok())
        .unwrap_or_else(|| panic!("{needle} is in no message: {request}"))
}

#[test]
#[ignore = "needs the real Claude Code: scripts/e2e"]
fn claude_code_gets_the_file_list_at_session_start_at_either_position() {
    for position in ["system_prompt", "user_message"] {
        let s = project(position);
        let run = s.install("claude", &[]);
        assert_eq!(run.code, Some(0), "{}", run.stderr);
        let marker = format!("E2E-POS:{position}");
        let mock = MockApi::start(Script::new().conversation(
            &marker,
            vec![
                vec![Block::tool(
                    "Read",
                    json!({"file_path": s.root.join("README.md")}),
                )],
                vec![Block::text("POS-DONE")],
            ],
        ));
        let run = s.claude(mock.base_url(), &s.root, &format!("{marker} go"), &[]);
        assert_eq!(run.code, Some(0), "{}\n{}", run.stdout, run.stderr);
        let requests = mock.conversation(&marker);
        let where_ = places(&requests[0], "<project_files");
        // Claude Code 2.1.330 sends SessionStart context as a message of
        // role `system` after the opening user message, and would send
        // UserPromptSubmit context the same way (measured with an earlier
        // build that deferred it): no hook can put the list in the user
        // message, so it stays with SessionStart at either position, and
        // no prompt hook is installed.
        assert!(
            where_.len() == 1 && where_[0].ends_with(":system"),
            "{position}: once, in a system message: {where_:?}"
        );
        let settings = std::fs::read_to_string(s.root.join(".claude/settings.local.json")).unwrap();
        assert!(!settings.contains("UserPromptSubmit"), "{settings}");
        let last = text_of_request(requests.last().unwrap());
        assert_eq!(
            last.matches("<project_files").count(),
            1,
            "{position}: never twice"
        );
    }
}

#[test]
#[ignore = "needs the real Codex: scripts/e2e"]
fn codex_gets_the_file_list_with_the_first_prompt_at_user_message() {
    for position in ["system_prompt", "user_message"] {
        let marker = format!("E2E-CODEX-POS:{position}");
        let mock = MockApi::start(Script::new().conversation(
            &marker,
            vec![
                vec![Block::tool("exec_command", json!({"cmd": "cat README.md"}))],
                vec![Block::text("POS-DONE")],
            ],
        ));
        let s = project(position);
        s.codex_config(mock.base_url(), "");
        let run = s.install("codex", &["--trust"]);
        assert_eq!(run.code, Some(0), "{}", run.stderr);
        let run = s.codex(&s.root, &format!("{marker} go"), &[]);
        assert_eq!(run.code, Some(0), "{}\n{}", run.stdout, run.stderr);
        let requests = mock.conversation(&marker);
        let first = &requests[0];
        let where_ = places(first, "<project_files");
        assert_eq!(where_.len(), 1, "{position}: once: {where_:?}");
        let prompt_at = first_at(first, &marker);
        let list_at = first_at(first, "<project_files");
        // Codex places hook context as a developer message: SessionStart's
        // before the prompt, UserPromptSubmit's after it.
        if position == "user_message" {
            assert!(
                list_at > prompt_at,
                "{position}: after the prompt: {where_:?}, prompt at {prompt_at}"
            );
        } else {
            assert!(
                list_at < prompt_at,
                "{position}: before the prompt: {where_:?}, prompt at {prompt_at}"
            );
        }
        let last = text_of_request(requests.last().unwrap());
        assert_eq!(
            last.matches("<project_files").count(),
            1,
            "{position}: never twice"
        );
    }
}
