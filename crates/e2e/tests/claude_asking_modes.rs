//! The real Claude Code in its asking mode (`--permission-mode default`)
//! with agentctx (issue 38): what it runs without a question (a read-only
//! command, one its settings allow) runs in the sandbox without one, in
//! strict mode and with `sandbox: auto`; what it would ask about stays its
//! question, which `-p` cannot show (refused: the measured control that
//! Claude Code, not agentctx, decided). Run with `scripts/e2e`.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests fail loudly")]

use agentctx_e2e::{Block, MockApi, Sandbox, Script, text_of_request};
use serde_json::json;

const SECRET: &str = "SECRET-ASKING-MODE";

fn session(rules: &str, marker: &str) -> (Sandbox, String, String) {
    let s = Sandbox::new();
    s.write("README.md", "README-BODY\n");
    s.write("secrets/key.txt", &format!("{SECRET}\n"));
    s.write(".coding-agent-rules.yaml", rules);
    // The user's own answer, in the project's shared settings (install
    // writes its hooks into the local ones).
    s.write(
        ".claude/settings.json",
        r#"{"permissions": {"allow": ["Bash(python3 -c:*)"]}}"#,
    );
    s.commit();
    let run = s.install("claude", &[]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let bash = |c: &str| {
        vec![Block::tool(
            "Bash",
            json!({"command": c, "description": "x"}),
        )]
    };
    let turns = vec![
        // Read-only: Claude Code runs it without asking; the kernel keeps
        // the excluded folder out of the search.
        bash("grep -r -e BODY -e ASKING ."),
        // Allowed by the user's settings: runs, sandboxed.
        bash("python3 -c \"print('PY' + '-43'); print(open('secrets/key.txt').read())\""),
        // Claude Code asks about it; `-p` refuses.
        bash("touch asked.marker"),
        vec![Block::text("ASKING-DONE")],
    ];
    let mock = MockApi::start(Script::new().conversation(marker, turns));
    let run = s.claude(
        mock.base_url(),
        &s.root,
        &format!("{marker} go"),
        &["--permission-mode", "default"],
    );
    assert_eq!(run.code, Some(0), "{}\n{}", run.stdout, run.stderr);
    let all: String = mock
        .conversation(marker)
        .iter()
        .map(text_of_request)
        .collect();
    let log =
        std::fs::read_to_string(s.home.join(".local/state/agentctx/hook.log")).unwrap_or_default();
    (s, all, log)
}

fn check(s: &Sandbox, all: &str, log: &str) {
    // The controls: both unasked commands ran.
    assert!(
        all.contains("README.md:README-BODY"),
        "the read-only command did not run\n{log}"
    );
    assert!(
        all.contains("PY-43"),
        "the allowed command did not run\n{log}"
    );
    assert!(
        log.contains("would run it without asking"),
        "the hook did not sandbox them\n{log}"
    );
    // The kernel held the excluded file.
    assert!(!all.contains(SECRET), "the secret reached the model\n{log}");
    // Claude Code's own question stayed its own.
    assert!(!s.root.join("asked.marker").exists(), "{log}");
}

#[test]
#[ignore = "needs the real Claude Code and bubblewrap: scripts/e2e"]
fn sandbox_auto_sandboxes_what_claude_code_runs_unasked() {
    let (s, all, log) = session(
        "file_patterns:\n  exclude: [\"secrets/\"]\n",
        "E2E-MAIN:asking-auto",
    );
    check(&s, &all, &log);
}

#[test]
#[ignore = "needs the real Claude Code and bubblewrap: scripts/e2e"]
fn strict_mode_asks_only_what_claude_code_would_ask() {
    let (s, all, log) = session(
        "strict: true\nfile_patterns:\n  exclude: [\"secrets/\"]\n",
        "E2E-MAIN:asking-strict",
    );
    check(&s, &all, &log);
}
