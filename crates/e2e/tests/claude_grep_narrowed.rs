//! A search of a project that holds a file the rules exclude (issue 38):
//! the real Claude Code's `Grep` runs without it (agentctx adds `!**/PATH`
//! globs to the call's `glob`), so the model gets the project's matches
//! and never the excluded file's, in both permission modes, without a
//! question. Run with `scripts/e2e`.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests fail loudly")]

use agentctx_e2e::{Block, MockApi, Sandbox, Script, text_of_request};
use serde_json::json;

fn narrowed(mode: &str) {
    let s = Sandbox::new();
    s.write("src/main.rs", "// NEEDLE-IN-SOURCE\n");
    s.write("notes.txt", "NEEDLE-IN-NOTES\n");
    s.write(".env", "NEEDLE-IN-DOTENV=1\n");
    s.write("secrets/key.txt", "NEEDLE-IN-SECRETS\n");
    s.write(
        ".coding-agent-rules.yaml",
        "file_patterns:\n  exclude: [\"**/.env\", \"secrets/\"]\n",
    );
    s.commit();
    let run = s.install("claude", &[]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let marker = format!("E2E-MAIN:grep-narrowed-{mode}");
    let turns = vec![
        // The whole project, content mode: every match's line is shown.
        vec![Block::tool(
            "Grep",
            json!({"pattern": "NEEDLE", "output_mode": "content"}),
        )],
        // With a glob of the model's own: kept, and the exclusions after it.
        vec![Block::tool(
            "Grep",
            json!({"pattern": "NEEDLE", "glob": "*.txt", "output_mode": "content"}),
        )],
        vec![Block::text("GREP-DONE")],
    ];
    let mock = MockApi::start(Script::new().conversation(&marker, turns));
    let run = s.claude(
        mock.base_url(),
        &s.root,
        &format!("{marker} go"),
        // 2.1.330 offers Grep only to a session that names it (its
        // launch option `searchToolsOptIn`, set by `--allowedTools` or
        // `--tools` naming Grep or Glob; otherwise the model greps through
        // Bash, in the sandbox); older releases always offer it.
        &["--permission-mode", mode, "--allowedTools", "Grep"],
    );
    assert_eq!(run.code, Some(0), "{}\n{}", run.stdout, run.stderr);
    let all: String = mock
        .conversation(&marker)
        .iter()
        .map(text_of_request)
        .collect();
    let log =
        std::fs::read_to_string(s.home.join(".local/state/agentctx/hook.log")).unwrap_or_default();
    assert!(
        all.contains("NEEDLE-IN-SOURCE") && all.contains("NEEDLE-IN-NOTES"),
        "{mode}: the search did not run\n{all}\n{log}"
    );
    assert!(
        !all.contains("NEEDLE-IN-DOTENV") && !all.contains("NEEDLE-IN-SECRETS"),
        "{mode}: an excluded file reached the model\n{all}"
    );
    assert!(
        !all.contains("Denied: a search of"),
        "{mode}: the search was denied\n{all}"
    );
}

#[test]
#[ignore = "needs the real Claude Code: scripts/e2e"]
fn claude_code_searches_without_excluded_files_in_its_asking_mode() {
    narrowed("default");
}

#[test]
#[ignore = "needs the real Claude Code: scripts/e2e"]
fn claude_code_searches_without_excluded_files_when_it_never_asks() {
    narrowed("bypassPermissions");
}
