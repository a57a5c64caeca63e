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
        "these tests need bubblewrap (scripts/test installs it)"
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
        "these tests need bubblewrap (scripts/test installs it)"
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

fn qwen_shell(t: &TestEnv, session: &str, command: &str) -> String {
    let payload = json!({
        "session_id": session, "cwd": t.project, "hook_event_name": "PreToolUse",
        "permission_mode": "yolo", "tool_name": "run_shell_command",
        "tool_input": {"command": command},
    });
    agentctx_with_input(t, &["hook", "--agent", "qwen"], &payload.to_string())
}

/// Qwen Code does not run a command a hook changed, so no sandbox: under
/// rules that restrict files, a command line whose words cannot show what
/// it opens is denied (it read `secrets/` before, 2026-11-26).
#[test]
fn qwen_commands_whose_words_cannot_show_their_files_are_denied_under_rules() {
    assert!(
        bubblewrap(),
        "these tests need bubblewrap (scripts/test installs it)"
    );
    let t = project();
    for command in [
        "python3 -c \"print(open('secrets/key.txt').read())\"",
        "xargs cat <<< secrets/key.txt",
        "cat $(echo secrets)/key.txt",
    ] {
        let answer = qwen_shell(&t, "q1", command);
        assert!(answer.contains("\"deny\""), "{command}: {answer}");
        assert!(answer.contains("checked on its words alone"), "{answer}");
    }
    assert_eq!(qwen_shell(&t, "q1", "cat README.md"), "");
    // Without rules that restrict files there is nothing to hide.
    let t = TestEnv::new();
    t.write("project/.git/HEAD", "ref: refs/heads/main\n");
    assert_eq!(qwen_shell(&t, "q2", "python3 -c 'print(1)'"), "");
}
