//! Every tool of the real Claude Code that runs a command is a shell
//! (issue 35, class 2): `Monitor` (2.1.330, on by default on Linux, behind
//! ToolSearch) ran its command as written, outside the sandbox; now it runs
//! in the sandbox like `Bash`. `PowerShell` (with
//! `CLAUDE_CODE_USE_POWERSHELL_TOOL=1`) can be neither read nor sandboxed:
//! denied while the rules restrict anything. Run with `scripts/e2e`.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests fail loudly")]

use agentctx_e2e::{Block, MockApi, Sandbox, Script, text_of_request};
use serde_json::json;

const SECRET: &str = "SECRET-MONITOR-CONTENT";

fn project() -> Sandbox {
    let s = Sandbox::new();
    s.write("README.md", "README-BODY\n");
    s.write("secrets/key.txt", &format!("{SECRET}\n"));
    s.write(
        ".coding-agent-rules.yaml",
        "file_patterns:\n  exclude: [\"secrets/\"]\n",
    );
    s.commit();
    let run = s.install("claude", &[]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    s
}

fn hook_log(s: &Sandbox) -> String {
    std::fs::read_to_string(s.home.join(".local/state/agentctx/hook.log")).unwrap_or_default()
}

#[test]
#[ignore = "needs the real Claude Code and bubblewrap: scripts/e2e"]
fn monitor_runs_its_command_in_the_sandbox() {
    let s = project();
    let rules_before = std::fs::read_to_string(s.root.join(".coding-agent-rules.yaml")).unwrap();
    let turns = vec![
        vec![Block::tool(
            "ToolSearch",
            json!({"query": "select:Monitor", "max_results": 5}),
        )],
        vec![Block::tool(
            "Monitor",
            json!({
                "description": "watch",
                "timeout_ms": 5000,
                // Names the hook cannot read from the words: only the
                // kernel can refuse them.
                "command": "d=secr; cat ${d}ets/key.txt > leaked.txt 2>&1; cp ${d}ets/key.txt copy.txt; \
                            f=.coding-agent-rules; echo 'file_patterns: {}' >> $f.yaml; \
                            echo MON-RAN > mon.out; cat README.md"
            }),
        )],
        // Time for the monitored command to end.
        vec![Block::tool(
            "Bash",
            json!({"command": "sleep 3; cat mon.out", "description": "wait"}),
        )],
        vec![Block::text("MONITOR-DONE")],
    ];
    let mock = MockApi::start(Script::new().conversation("E2E-MAIN:monitor", turns));
    let run = s.claude(mock.base_url(), &s.root, "E2E-MAIN:monitor go", &[]);
    assert_eq!(run.code, Some(0), "{}\n{}", run.stdout, run.stderr);
    let requests = mock.conversation("E2E-MAIN:monitor");
    let all: String = requests.iter().map(text_of_request).collect();
    let log = hook_log(&s);
    // The control: Monitor's command ran, in the sandbox.
    assert_eq!(
        std::fs::read_to_string(s.root.join("mon.out")).unwrap_or_default(),
        "MON-RAN\n",
        "{all}\n{log}"
    );
    assert!(
        log.contains("shell command runs in the sandbox"),
        "the hook sandboxed no command: {log}"
    );
    assert!(!all.contains(SECRET), "the secret reached the model\n{log}");
    let leaked = std::fs::read_to_string(s.root.join("leaked.txt")).unwrap_or_default();
    assert!(!leaked.contains(SECRET), "{leaked}");
    assert!(
        !s.root.join("copy.txt").is_file() || {
            !std::fs::read_to_string(s.root.join("copy.txt"))
                .unwrap()
                .contains(SECRET)
        }
    );
    assert_eq!(
        std::fs::read_to_string(s.root.join(".coding-agent-rules.yaml")).unwrap(),
        rules_before
    );
}

#[test]
#[ignore = "needs the real Claude Code: scripts/e2e"]
fn powershell_is_denied_while_the_rules_restrict_anything() {
    let s = project();
    let turns = vec![
        vec![Block::tool(
            "ToolSearch",
            json!({"query": "select:PowerShell", "max_results": 5}),
        )],
        vec![Block::tool(
            "PowerShell",
            json!({"command": "Get-Content secrets/key.txt", "description": "read"}),
        )],
        vec![Block::text("PS-DONE")],
    ];
    let mock = MockApi::start(Script::new().conversation("E2E-MAIN:ps", turns));
    let run = s.claude_env(
        mock.base_url(),
        &s.root,
        "E2E-MAIN:ps go",
        &[],
        &[("CLAUDE_CODE_USE_POWERSHELL_TOOL", "1")],
    );
    assert_eq!(run.code, Some(0), "{}\n{}", run.stdout, run.stderr);
    let requests = mock.conversation("E2E-MAIN:ps");
    let last = text_of_request(requests.last().unwrap());
    // The control: the tool was offered and called (its denial is the
    // tool's result).
    assert!(
        last.contains("Denied: this PowerShell command"),
        "{last}\n{}",
        hook_log(&s)
    );
    assert!(!last.contains(SECRET));
}
