//! Every tool that runs a command is a shell (issue 35, class 2): Claude
//! Code's `Monitor` and a tool agentctx does not know whose input holds a
//! `command` (an MCP server's `run_command`) run in the sandbox as `Bash`
//! does, and a rule about `Bash` holds for them; `PowerShell` is denied
//! while rules restrict anything. The payloads are Claude Code 2.1.330's
//! recorded PreToolUse with the tool replaced: `Monitor` and `PowerShell`
//! reached the hook with these names and a `command` in a run of the real
//! agent (docs/integrations/claude-code.md); the MCP tool is a guess at a
//! server's tool, which is the point: any name.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests fail loudly")]

mod common;

use common::{TestEnv, agentctx_with_input, claude_payload};
use serde_json::{Value, json};

fn project(rules: &str) -> TestEnv {
    let t = TestEnv::new();
    t.write("project/.git/HEAD", "ref: refs/heads/main\n");
    t.write("project/secrets/key.txt", "SECRET\n");
    t.write("project/.coding-agent-rules.yaml", rules);
    t
}

const RULES: &str = "file_patterns:\n  exclude: [\"secrets/\"]\n";

/// The reply to a `bypassPermissions` PreToolUse of `tool` with `input`.
fn reply(t: &TestEnv, session: &str, tool: &str, input: Value) -> Value {
    let mut payload: Value = serde_json::from_str(&claude_payload(
        t,
        &t.project,
        "claude-PreToolUse-Bash.json",
        session,
    ))
    .unwrap();
    payload["tool_name"] = tool.into();
    payload["tool_input"] = input;
    payload["permission_mode"] = "bypassPermissions".into();
    let out = agentctx_with_input(t, &["hook", "--agent", "claude"], &payload.to_string());
    if out.trim().is_empty() {
        Value::Null
    } else {
        serde_json::from_str(&out).unwrap()
    }
}

fn bubblewrap() {
    assert!(
        ["/usr/bin/bwrap", "/bin/bwrap"]
            .iter()
            .any(|p| std::path::Path::new(p).exists()),
        "these tests need bubblewrap (scripts/test installs it)"
    );
}

fn decision(reply: &Value) -> &str {
    reply["hookSpecificOutput"]["permissionDecision"]
        .as_str()
        .unwrap_or("none")
}

#[test]
fn monitor_and_an_unknown_command_tool_are_wrapped_like_bash() {
    bubblewrap();
    let t = project(RULES);
    for (session, tool) in [
        ("m1", "Bash"),
        ("m2", "Monitor"),
        ("m3", "mcp__desktop__start_process"),
    ] {
        let answer = reply(
            &t,
            session,
            tool,
            json!({"command": "make test", "description": "x", "timeout_ms": 5000}),
        );
        let command = answer["hookSpecificOutput"]["updatedInput"]["command"]
            .as_str()
            .unwrap_or_default();
        assert!(command.contains("exec --session"), "{tool}: {answer}");
        assert!(command.contains("'make test'"), "{tool}: {answer}");
        assert_eq!(decision(&answer), "allow", "{tool}: {answer}");
        // The other fields are kept.
        assert_eq!(
            answer["hookSpecificOutput"]["updatedInput"]["timeout_ms"], 5000,
            "{tool}: {answer}"
        );
        // Only Bash's shell keeps its folder: the others are not given
        // the folder dance.
        assert_eq!(
            command.contains("--cwd-script"),
            tool == "Bash",
            "{command}"
        );
    }
    // Codex's apply_patch carries its patch as `command`: not a command.
    let patch = reply(
        &t,
        "m4",
        "apply_patch",
        json!({"command": "*** Begin Patch\n*** Add File: a.txt\n+x\n*** End Patch\n"}),
    );
    assert!(patch.is_null(), "{patch}");
}

#[test]
fn a_rule_denying_bash_holds_for_every_command_tool_and_an_allow_list_does_not_widen() {
    bubblewrap();
    let t = project("denied_tools: [Bash]\nfile_patterns:\n  exclude: [\"secrets/\"]\n");
    for tool in ["Bash", "Monitor", "mcp__desktop__start_process"] {
        let answer = reply(&t, "d1", tool, json!({"command": "ls"}));
        assert_eq!(decision(&answer), "deny", "{tool}: {answer}");
    }
    // The same tool without a command is not a shell: allowed.
    let answer = reply(&t, "d1", "mcp__desktop__kill_process", json!({"pid": 12}));
    assert_ne!(decision(&answer), "deny", "{answer}");
    // An allow-list naming Bash allows Bash and Monitor (Bash to the
    // rules), not every tool that carries a command.
    let t = project("allowed_tools: [Bash, Read]\nfile_patterns:\n  exclude: [\"secrets/\"]\n");
    for tool in ["Bash", "Monitor"] {
        let answer = reply(&t, "a1", tool, json!({"command": "ls"}));
        assert_eq!(decision(&answer), "allow", "{tool}: {answer}");
    }
    let answer = reply(
        &t,
        "a1",
        "mcp__desktop__start_process",
        json!({"command": "ls"}),
    );
    assert_eq!(decision(&answer), "deny", "{answer}");
}

#[test]
fn powershell_is_denied_while_rules_restrict_and_its_words_are_not_read_as_bash() {
    let t = project(RULES);
    let answer = reply(
        &t,
        "p1",
        "PowerShell",
        json!({"command": "Get-ChildItem", "description": "x"}),
    );
    assert_eq!(decision(&answer), "deny", "{answer}");
    assert!(
        answer["hookSpecificOutput"]["permissionDecisionReason"]
            .as_str()
            .unwrap()
            .contains("PowerShell"),
        "{answer}"
    );
    // Beside it, the same command through Bash is not denied.
    let bash = reply(
        &t,
        "p1",
        "Bash",
        json!({"command": "ls", "description": "x"}),
    );
    assert_ne!(decision(&bash), "deny", "{bash}");
}
