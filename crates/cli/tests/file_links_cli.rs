//! A file tool's path through a link a command could change (issue 35,
//! class 3): Claude Code's tool is given the resolved path the hook
//! judged; the agents whose tools cannot be given a changed path are
//! denied, told the resolved path. The end-to-end test
//! (crates/e2e/tests/claude_file_links.rs) flips the link after the check
//! with the real Claude Code. Payloads: Claude Code 2.1.330's recorded
//! PreToolUse of Read; the others' PreToolUse in the shared shape their
//! dialects read (Gemini CLI's `read_file`, Copilot CLI's `Read` of
//! its PascalCase hooks: recorded names, fields `file_path` and `path`).

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests fail loudly")]

mod common;

use common::{TestEnv, agentctx_with_input, claude_payload};
use serde_json::{Value, json};

fn project() -> TestEnv {
    let t = TestEnv::new();
    t.write("project/.git/HEAD", "ref: refs/heads/main\n");
    t.write("project/README.md", "README\n");
    t.write("project/docs/a.md", "a\n");
    t.write("project/secrets/key.txt", "SECRET\n");
    t.write(
        "project/.coding-agent-rules.yaml",
        "file_patterns:\n  exclude: [\"secrets/\"]\n",
    );
    std::os::unix::fs::symlink("README.md", t.project.join("doc.md")).unwrap();
    std::os::unix::fs::symlink("docs", t.project.join("d")).unwrap();
    t
}

fn claude(t: &TestEnv, session: &str, mode: &str, tool: &str, input: Value) -> Value {
    let mut payload: Value = serde_json::from_str(&claude_payload(
        t,
        &t.project,
        "claude-PreToolUse-Read.json",
        session,
    ))
    .unwrap();
    payload["tool_name"] = tool.into();
    payload["tool_input"] = input;
    payload["permission_mode"] = mode.into();
    let out = agentctx_with_input(t, &["hook", "--agent", "claude"], &payload.to_string());
    serde_json::from_str(&out).unwrap_or(Value::Null)
}

#[test]
fn claude_code_is_given_the_resolved_path_of_a_link() {
    let t = project();
    let root = std::fs::canonicalize(&t.project).unwrap();
    for (tool, field, given, resolved) in [
        ("Read", "file_path", "doc.md", "README.md"),
        ("Write", "file_path", "d/new.md", "docs/new.md"),
        ("Edit", "file_path", "d/a.md", "docs/a.md"),
        ("Grep", "path", "d", "docs"),
    ] {
        let answer = claude(
            &t,
            "c1",
            "bypassPermissions",
            tool,
            json!({field: root.join(given), "pattern": "x", "content": "y", "old_string": "a", "new_string": "b"}),
        );
        let output = &answer["hookSpecificOutput"];
        assert_eq!(output["permissionDecision"], "allow", "{tool}: {answer}");
        assert_eq!(
            output["updatedInput"][field],
            json!(root.join(resolved)),
            "{tool}: {answer}"
        );
        // The other fields are kept as they were.
        assert_eq!(output["updatedInput"]["pattern"], "x", "{answer}");
    }
    // In a mode that asks, no decision: Claude Code's own permission flow
    // judges the changed input (measured: an `ask` is a denial in `-p`).
    let asking = claude(
        &t,
        "c1",
        "default",
        "Read",
        json!({"file_path": root.join("doc.md")}),
    );
    assert_eq!(
        asking["hookSpecificOutput"]["updatedInput"]["file_path"],
        json!(root.join("README.md")),
        "{asking}"
    );
    assert!(
        asking["hookSpecificOutput"]
            .get("permissionDecision")
            .is_none(),
        "{asking}"
    );
    // A path with no link on the way: no answer, the agent's own flow.
    let plain = claude(
        &t,
        "c1",
        "bypassPermissions",
        "Read",
        json!({"file_path": root.join("docs/a.md")}),
    );
    assert!(plain.is_null(), "{plain}");
}

/// The decision in the field each agent reads (none: no answer).
fn decision(agent: &str, out: &str) -> String {
    let Ok(reply) = serde_json::from_str::<Value>(out) else {
        return "none".to_owned();
    };
    let field = match agent {
        "gemini" => &reply["decision"],
        "copilot" => &reply["permissionDecision"],
        _ => &reply["hookSpecificOutput"]["permissionDecision"],
    };
    field.as_str().unwrap_or("none").to_owned()
}

#[test]
fn agents_whose_tools_take_no_changed_path_are_told_the_resolved_one() {
    let t = project();
    let root = std::fs::canonicalize(&t.project).unwrap();
    for (agent, tool, field) in [
        ("gemini", "read_file", "file_path"),
        ("copilot", "Read", "path"),
        ("qwen", "read_file", "file_path"),
    ] {
        let payload = json!({
            "session_id": format!("{agent}-1"), "cwd": root, "hook_event_name": if agent == "gemini" { "BeforeTool" } else { "PreToolUse" },
            "tool_name": tool, "tool_input": {field: root.join("doc.md")},
        });
        let out = agentctx_with_input(&t, &["hook", "--agent", agent], &payload.to_string());
        assert_eq!(decision(agent, &out), "deny", "{agent}: {out}");
        assert!(
            out.contains(&root.join("README.md").display().to_string()),
            "{agent}: {out}"
        );
        // Beside it, the resolved path itself is allowed.
        let payload = json!({
            "session_id": format!("{agent}-1"), "cwd": root, "hook_event_name": if agent == "gemini" { "BeforeTool" } else { "PreToolUse" },
            "tool_name": tool, "tool_input": {field: root.join("README.md")},
        });
        let out = agentctx_with_input(&t, &["hook", "--agent", agent], &payload.to_string());
        assert_eq!(decision(agent, &out), "none", "{agent}: {out}");
    }
}
