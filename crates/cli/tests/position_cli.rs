//! `file_list_context.position: user_message` through the hooks. Codex
//! places hook context as developer messages, SessionStart's before the
//! prompt and UserPromptSubmit's after it: there the file list leaves
//! `SessionStart` and goes with the session's first prompt, once, and
//! again after a compaction. Claude Code puts either hook's context in a
//! `system` message (measured, crates/e2e/tests/position.rs): its file list
//! stays with SessionStart.
//!
//! The `UserPromptSubmit` payloads here are the recorded `SessionStart`
//! payloads with the event renamed, `source` dropped and a `prompt` added: a
//! guess at the shape (agentctx reads only the fields every payload has);
//! the end-to-end suite runs the real agents.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests fail loudly")]

mod common;

use std::path::Path;

use common::{TestEnv, claude_payload, hook_context, workspace_root};
use serde_json::Value;

const USER: [&str; 2] = ["-c", "file_list_context.position=user_message"];

/// Codex's recorded SessionStart for `cwd` and `session`, as `source`.
fn codex_start(t: &TestEnv, cwd: &Path, session: &str, source: &str) -> String {
    let text = std::fs::read_to_string(
        workspace_root().join("fixtures/agents/codex-0.169.0/hook-session-start.json"),
    )
    .unwrap();
    let mut value: Value = serde_json::from_str(
        &text
            .replace("{{SCRATCH}}/repo", &cwd.display().to_string())
            .replace("{{SCRATCH}}", &t.dir.path().display().to_string()),
    )
    .unwrap();
    value["session_id"] = session.into();
    value["source"] = source.into();
    value.to_string()
}

/// `start` as a prompt's payload (Codex's carry a `turn_id`).
fn as_prompt(start: &str) -> String {
    let mut value: Value = serde_json::from_str(start).unwrap();
    if value.get("model").is_some() {
        value["turn_id"] = "t-1".into();
    }
    value["hook_event_name"] = "UserPromptSubmit".into();
    value["prompt"] = "go".into();
    value.as_object_mut().unwrap().remove("source");
    value.to_string()
}

fn project() -> TestEnv {
    let t = TestEnv::new();
    t.write("project/.git/HEAD", "ref: refs/heads/main\n");
    t.write("project/src/main.rs", "fn main() {}\n");
    t
}

#[test]
fn codex_gets_the_file_list_with_the_first_prompt_once_and_again_after_a_compaction() {
    let t = project();
    let start = codex_start(&t, &t.project, "s-1", "startup");
    let started = hook_context(&t, &start, &USER);
    assert!(!started.contains("<project_files"), "{started}");
    let first = hook_context(&t, &as_prompt(&start), &USER);
    assert!(first.starts_with("<project_files"), "{first}");
    assert!(first.contains("main.rs"), "{first}");
    assert_eq!(hook_context(&t, &as_prompt(&start), &USER), "", "once");
    // A compaction drops the first prompt's context: the next prompt has it again.
    let _ = hook_context(&t, &codex_start(&t, &t.project, "s-1", "compact"), &USER);
    assert_eq!(hook_context(&t, &as_prompt(&start), &USER), first);

    // At the default position the prompt hook gives nothing, SessionStart all.
    let start = codex_start(&t, &t.project, "s-2", "startup");
    assert!(hook_context(&t, &start, &[]).contains("<project_files"));
    assert_eq!(hook_context(&t, &as_prompt(&start), &[]), "");
}

#[test]
fn claude_code_keeps_the_file_list_at_session_start_whatever_the_position() {
    let t = project();
    let start = claude_payload(&t, &t.project, "claude-SessionStart-startup.json", "s-1");
    assert!(hook_context(&t, &start, &USER).contains("<project_files"));
    assert_eq!(hook_context(&t, &as_prompt(&start), &USER), "");
}
