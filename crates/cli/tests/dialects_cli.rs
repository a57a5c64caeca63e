//! The agent dialects through the binary, where the answer depends on the
//! sandbox being there (bubblewrap, `agentctx exec`): a second attack pass
//! (2026-11-26) found Copilot CLI's rewrite granting its own approval, and
//! opencode's `permission.bash` patterns judging agentctx's wrapper.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests fail loudly")]

mod common;

use common::{TestEnv, agentctx_with_input};
use serde_json::{Value, json};

fn project() -> TestEnv {
    let t = TestEnv::new();
    t.write("project/.git/HEAD", "ref: refs/heads/main\n");
    t.write("project/secrets/key.txt", "SECRET\n");
    t.write(
        "project/.coding-agent-rules.yaml",
        "file_patterns:\n  exclude: [\"secrets/\"]\n",
    );
    t
}

fn shell(t: &TestEnv, agent: &str, tool: &str, session: &str) -> String {
    let payload = json!({
        "session_id": session, "cwd": t.project, "hook_event_name": "PreToolUse",
        "tool_name": tool, "tool_input": {"command": "echo hi", "description": "x"},
    });
    agentctx_with_input(t, &["hook", "--agent", agent], &payload.to_string())
}

fn bubblewrap() -> bool {
    ["/usr/bin/bwrap", "/bin/bwrap"]
        .iter()
        .any(|p| std::path::Path::new(p).exists())
}

#[test]
fn copilot_gets_the_wrapped_command_without_an_approval() {
    assert!(
        bubblewrap(),
        "these tests need bubblewrap (.ci/run installs it)"
    );
    let t = project();
    let answer = shell(&t, "copilot", "Bash", "c1");
    let reply: Value = serde_json::from_str(&answer).unwrap();
    assert!(
        reply["modifiedArgs"]["command"]
            .as_str()
            .unwrap()
            .contains("exec --session"),
        "{answer}"
    );
    assert!(reply.get("permissionDecision").is_none(), "{answer}");
}

#[test]
fn opencode_bash_rules_keep_the_command_as_written() {
    assert!(
        bubblewrap(),
        "these tests need bubblewrap (.ci/run installs it)"
    );
    let t = project();
    assert!(shell(&t, "opencode", "bash", "o1").contains("exec --session"));
    t.write(
        "home/.config/opencode/opencode.json",
        r#"{"permission": {"bash": {"*": "allow", "git push *": "deny"}}}"#,
    );
    let answer = shell(&t, "opencode", "bash", "o2");
    assert!(!answer.contains("exec --session"), "{answer}");
    // A project's config counts too, and one with comments.
    let t = project();
    t.write(
        "project/opencode.jsonc",
        "{\n  // mine\n  \"permission\": {\"bash\": {\"rm *\": \"ask\"}}\n}\n",
    );
    assert!(!shell(&t, "opencode", "bash", "o3").contains("exec --session"));
}
