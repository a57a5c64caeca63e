//! Command rules and presets (issue 38) in the real Claude Code and Codex:
//! a command a rule names does not run, however the line hides it (`bash
//! -c --`, a script piped into a shell, a package runner), and the reason
//! reaches the model; an ordinary command beside it runs. In Claude Code's
//! asking mode a preset's question is the agent's own prompt, which `-p`
//! cannot show: it is refused there, as measured below. Run with
//! `scripts/e2e`.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests fail loudly")]

use agentctx_e2e::{Block, MockApi, Sandbox, Script, text_of_request};
use serde_json::json;

const RULES: &str =
    "presets: [destructive, history-rewriting]\ncommands:\n  deny: [\"git push --force*\"]\n";

fn project() -> Sandbox {
    let s = Sandbox::new();
    s.write("README.md", "README-BODY\n");
    s.write(".coding-agent-rules.yaml", RULES);
    s.commit();
    s
}

/// The lines each agent is asked to run: each held one would leave a
/// marker file, the last one must.
const HELD: [&str; 4] = [
    "bash -c -- 'git push --force origin HEAD 2>/dev/null; touch held-1'",
    "echo 'git reset --hard; touch held-2' | sh",
    "npx -c 'git push -f origin HEAD; touch held-3'",
    "alias wipe='rm -rf ~'; wipe; touch held-4",
];
/// Read-only: Claude Code runs it without asking in its asking mode too.
const ORDINARY: &str = "cat README.md";

fn check(s: &Sandbox, all: &str, agent: &str) {
    let log =
        std::fs::read_to_string(s.home.join(".local/state/agentctx/hook.log")).unwrap_or_default();
    for i in 1..=HELD.len() {
        assert!(
            !s.root.join(format!("held-{i}")).exists(),
            "{agent}: line {i} ran\n{log}"
        );
    }
    // The control: an ordinary command ran (its output is in no command).
    assert!(
        all.contains("README-BODY"),
        "{agent}: the ordinary command did not run\n{log}"
    );
    // The model was told which rule and where.
    assert!(
        all.contains("git push --force*") && all.contains(".coding-agent-rules.yaml:3"),
        "{agent}: the denial's reason did not reach the model\n{log}"
    );
    assert!(all.contains("history-rewriting"), "{agent}\n{log}");
}

fn claude(mode: &str) {
    let s = project();
    let run = s.install("claude", &[]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let marker = format!("E2E-MAIN:commands-{mode}");
    let mut turns: Vec<Vec<Block>> = HELD
        .iter()
        .chain([ORDINARY].iter())
        .map(|c| {
            vec![Block::tool(
                "Bash",
                json!({"command": c, "description": "x"}),
            )]
        })
        .collect();
    turns.push(vec![Block::text("COMMANDS-DONE")]);
    let mock = MockApi::start(Script::new().conversation(&marker, turns));
    let run = s.claude(
        mock.base_url(),
        &s.root,
        &format!("{marker} go"),
        &["--permission-mode", mode],
    );
    assert_eq!(run.code, Some(0), "{}\n{}", run.stdout, run.stderr);
    let all: String = mock
        .conversation(&marker)
        .iter()
        .map(text_of_request)
        .collect();
    check(&s, &all, &format!("claude {mode}"));
}

#[test]
#[ignore = "needs the real Claude Code: scripts/e2e"]
fn claude_code_holds_command_rules_when_it_never_asks() {
    claude("bypassPermissions");
}

#[test]
#[ignore = "needs the real Claude Code: scripts/e2e"]
fn claude_code_holds_command_rules_in_its_asking_mode() {
    claude("default");
}

#[test]
#[ignore = "needs the real Codex: scripts/e2e"]
fn codex_holds_command_rules() {
    let marker = "E2E-CODEX:commands";
    let mut turns: Vec<Vec<Block>> = HELD
        .iter()
        .chain([ORDINARY].iter())
        .map(|c| vec![Block::tool("exec_command", json!({"cmd": c}))])
        .collect();
    turns.push(vec![Block::text("COMMANDS-DONE")]);
    let mock = MockApi::start(Script::new().conversation(marker, turns));
    let s = project();
    s.codex_config(mock.base_url(), "");
    let run = s.install("codex", &["--trust"]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let run = s.codex(&s.root, &format!("{marker} go"), &[]);
    assert_eq!(run.code, Some(0), "{}\n{}", run.stdout, run.stderr);
    let all: String = mock
        .conversation(marker)
        .iter()
        .map(text_of_request)
        .collect();
    check(&s, &all, "codex");
}
