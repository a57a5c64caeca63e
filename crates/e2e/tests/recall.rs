//! Recall with the real Claude Code and Codex: work captured in one
//! session reaches the model in the first request of a session started in
//! another worktree of the same repository, as an index line whose id the
//! model can fetch (a scripted shell call of `agentctx mem show ID`); a
//! session in an unrelated repository gets nothing. Run with `scripts/e2e`.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests fail loudly")]

use std::path::Path;
use std::process::Command;

use agentctx_e2e::{Block, MockApi, Sandbox, Script, agentctx_bin, text_of_request};
use serde_json::{Value, json};

fn git(dir: &Path, args: &[&str]) {
    let status = Command::new("git")
        .args([
            "-c",
            "user.email=e2e@example.invalid",
            "-c",
            "user.name=e2e",
        ])
        .args(args)
        .current_dir(dir)
        .status()
        .unwrap();
    assert!(status.success(), "git {args:?}");
}

/// The id of the index line that names `completion`, as `mem index` shows
/// it in `cwd` (what the session there will be given).
fn index_id(s: &Sandbox, cwd: &Path, completion: &str) -> String {
    let run = s.agentctx(cwd, &["mem", "index"]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let line = run
        .stdout
        .lines()
        .find(|l| l.starts_with("- ") && l.contains(completion))
        .unwrap_or_else(|| panic!("no line for {completion}: {}", run.stdout));
    line.rsplit('[')
        .next()
        .unwrap()
        .trim_end_matches(']')
        .to_owned()
}

#[test]
#[ignore = "needs the real Claude Code: scripts/e2e"]
fn a_capture_is_recalled_in_another_worktree_and_fetched_by_id() {
    let s = Sandbox::new();
    s.write("README.md", "recall\n");
    s.write(
        ".claude/agents/researcher.md",
        "---\nname: researcher\ndescription: Researches the code base.\ntools: Read\n---\nYou research.\n",
    );
    s.commit();
    let run = s.install("claude", &["--user"]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);

    // Session 1: a sub-agent whose output is captured.
    let first = MockApi::start(
        Script::new()
            .conversation(
                "E2E-MAIN:one",
                vec![
                    vec![Block::tool(
                        "Agent",
                        json!({"description": "Study the cache", "prompt": "E2E-SUB:r1 study the cache", "subagent_type": "researcher"}),
                    )],
                    vec![Block::text("MAIN-ONE-DONE")],
                ],
            )
            .conversation(
                "E2E-SUB:r1",
                vec![vec![Block::text(
                    "🎯 COMPLETED: [AGENT:researcher] RECALL-FINDING the cache is cold\n\nRECALL-BODY: warm it at start.",
                )]],
            ),
    );
    let run = s.claude(first.base_url(), &s.root, "E2E-MAIN:one go", &[]);
    assert_eq!(run.code, Some(0), "{}\n{}", run.stdout, run.stderr);
    assert_eq!(s.captures().len(), 1, "{:?}", s.captures());

    // Session 2, in another worktree: the index line in the first request;
    // the body for the model's `mem show`.
    let worktree = s.path().join("worktree");
    git(
        &s.root,
        &[
            "worktree",
            "add",
            "-q",
            worktree.to_str().unwrap(),
            "-b",
            "wt",
        ],
    );
    let worktree = std::fs::canonicalize(worktree).unwrap();
    let id = index_id(&s, &worktree, "RECALL-FINDING");
    let fetch = format!("{} mem show {id}", agentctx_bin().display());
    let second = MockApi::start(Script::new().conversation(
        "E2E-MAIN:two",
        vec![
            vec![Block::tool(
                "Bash",
                json!({"command": fetch, "description": "Read a past finding"}),
            )],
            vec![Block::text("MAIN-TWO-DONE")],
        ],
    ));
    let run = s.claude(second.base_url(), &worktree, "E2E-MAIN:two go", &[]);
    assert_eq!(run.code, Some(0), "{}\n{}", run.stdout, run.stderr);
    let requests = second.conversation("E2E-MAIN:two");
    assert!(requests.len() >= 2, "{} requests", requests.len());
    let opening = text_of_request(&requests[0]);
    assert!(opening.contains("<memory_index project="), "{opening}");
    assert!(
        opening.contains(&format!(
            "RESEARCH researcher: RECALL-FINDING the cache is cold [{id}]"
        )),
        "{opening}"
    );
    assert_eq!(
        opening.matches("<memory_index").count(),
        1,
        "once: {opening}"
    );
    let after = text_of_request(&requests[1]);
    assert!(after.contains("RECALL-BODY: warm it at start."), "{after}");

    // An unrelated repository: nothing.
    let other = s.path().join("other");
    std::fs::create_dir_all(&other).unwrap();
    git(&other, &["init", "-q", "-b", "main"]);
    git(&other, &["commit", "-q", "--allow-empty", "-m", "other"]);
    let third = MockApi::start(
        Script::new().conversation("E2E-MAIN:three", vec![vec![Block::text("THREE-DONE")]]),
    );
    let run = s.claude(third.base_url(), &other, "E2E-MAIN:three go", &[]);
    assert_eq!(run.code, Some(0), "{}\n{}", run.stdout, run.stderr);
    let opening = text_of_request(&third.conversation("E2E-MAIN:three")[0]);
    assert!(!opening.contains("memory_index"), "{opening}");
    assert!(!opening.contains("RECALL-FINDING"), "{opening}");
}

/// The output Codex gave the model for its first call.
fn first_call_output(requests: &[Value]) -> String {
    let items = requests[1]["input"].as_array().unwrap();
    items
        .iter()
        .filter(|i| i["type"].as_str().is_some_and(|t| t.ends_with("_output")))
        .map(|i| match &i["output"] {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        })
        .collect()
}

#[test]
#[ignore = "needs the real Codex: scripts/e2e"]
fn codex_recalls_a_turn_answer_in_another_worktree() {
    let s = Sandbox::new();
    s.write("README.md", "recall\n");
    s.commit();
    let worktree = s.path().join("worktree");
    git(
        &s.root,
        &[
            "worktree",
            "add",
            "-q",
            worktree.to_str().unwrap(),
            "-b",
            "wt",
        ],
    );
    let worktree = std::fs::canonicalize(worktree).unwrap();
    // Both folders trusted (Codex runs hooks only in a trusted project).
    let trusted = format!(
        "[projects.\"{}\"]\ntrust_level = \"trusted\"\n",
        worktree.display()
    );
    let install = |s: &Sandbox| {
        let run = s.install("codex", &["--user", "--trust"]);
        assert_eq!(run.code, Some(0), "{}", run.stderr);
    };

    // Session 1: the turn's answer, captured by the Stop hook.
    let first = MockApi::start(Script::new().conversation(
        "E2E-CODEX:one",
        vec![vec![Block::text(
            "🎯 COMPLETED: [AGENT:engineer] CODEX-FINDING the queue drops retries\n\nCODEX-BODY: retry twice.",
        )]],
    ));
    s.codex_config(first.base_url(), &trusted);
    install(&s);
    let run = s.codex(&s.root, "E2E-CODEX:one go", &[]);
    assert_eq!(run.code, Some(0), "{}\n{}", run.stdout, run.stderr);
    assert_eq!(s.captures().len(), 1, "{:?}", s.captures());

    // Session 2, in the worktree.
    let id = index_id(&s, &worktree, "CODEX-FINDING");
    let fetch = format!("{} mem show {id}", agentctx_bin().display());
    let second = MockApi::start(Script::new().conversation(
        "E2E-CODEX:two",
        vec![
            vec![Block::tool("exec_command", json!({"cmd": fetch}))],
            vec![Block::text("TWO-DONE")],
        ],
    ));
    // A new config for the new mock: the hooks' trust is recorded again.
    s.codex_config(second.base_url(), &trusted);
    install(&s);
    let run = s.codex(&worktree, "E2E-CODEX:two go", &[]);
    assert_eq!(run.code, Some(0), "{}\n{}", run.stdout, run.stderr);
    let requests = second.conversation("E2E-CODEX:two");
    assert!(
        requests.len() >= 2,
        "{} requests: {}",
        requests.len(),
        run.stderr
    );
    let opening = text_of_request(&requests[0]);
    assert!(
        opening.contains(&format!(
            "IMPLEMENTATION engineer: CODEX-FINDING the queue drops retries [{id}]"
        )),
        "{opening}"
    );
    assert_eq!(
        opening.matches("<memory_index").count(),
        1,
        "once: {opening}"
    );
    let output = first_call_output(&requests);
    assert!(output.contains("CODEX-BODY: retry twice."), "{output}");
}
