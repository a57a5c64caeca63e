//! Recall through the binary: a `SessionStart` (recorded Claude Code
//! 2.1.330 payloads) in a repository whose sub-agents were captured before
//! gets the `<memory_index>`, the same bytes for the whole session; the
//! switches turn it off; `mem show ID` fetches what a line names, and
//! `--this-project` keeps searches inside the project.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests fail loudly")]

#[path = "../../agentmem/tests/support/git.rs"]
mod support_git;
use support_git::git;

mod common;

use std::path::{Path, PathBuf};

use common::{
    TestEnv, agentctx_with_input as agentctx, claude_payload as payload, hook_context as context,
    run,
};
use serde_json::json;

/// A repository (the test's project) with a commit, a worktree of it, and
/// an unrelated repository.
fn world() -> (TestEnv, PathBuf, PathBuf, PathBuf) {
    let t = TestEnv::new();
    t.write("project/README.md", "hello\n");
    git(&t.project, &["init", "-q", "-b", "main"]);
    git(&t.project, &["add", "-A"]);
    git(&t.project, &["commit", "-q", "-m", "first"]);
    git(
        &t.project,
        &["worktree", "add", "-q", "../worktree", "-b", "wt"],
    );
    let other = t.dir.path().join("other");
    std::fs::create_dir_all(&other).unwrap();
    git(&other, &["init", "-q", "-b", "main"]);
    git(&other, &["commit", "-q", "--allow-empty", "-m", "o"]);
    let root = std::fs::canonicalize(&t.project).unwrap();
    let worktree = std::fs::canonicalize(t.dir.path().join("worktree")).unwrap();
    let other = std::fs::canonicalize(other).unwrap();
    (t, root, worktree, other)
}

/// A sub-agent's output captured by the hook, as 2.1.47+ sends it (the
/// payload carries the message; the shape is the recorded one's plus it).
fn capture(t: &TestEnv, cwd: &Path, agent_id: &str, message: &str) {
    let payload = json!({
        "session_id": "earlier-session",
        "transcript_path": "/nonexistent/t.jsonl",
        "cwd": cwd,
        "hook_event_name": "SubagentStop",
        "agent_id": agent_id,
        "agent_type": "researcher",
        "agent_transcript_path": "/nonexistent/agent.jsonl",
        "last_assistant_message": message,
    });
    agentctx(t, &["hook"], &payload.to_string());
}

#[test]
fn a_session_in_another_worktree_starts_with_the_index_and_keeps_its_bytes() {
    let (t, root, worktree, other) = world();
    capture(
        &t,
        &root,
        "a1",
        "🎯 COMPLETED: [AGENT:researcher] FIRST-FINDING: the cache is cold\n\nFIRST-BODY: details.",
    );
    let start = payload(&t, &worktree, "claude-SessionStart-startup.json", "s-1");
    let given = context(&t, &start, &[]);
    let index_at = given.find("<memory_index").expect("the index is given");
    let index = &given[index_at..];
    assert!(
        index.contains("RESEARCH researcher: FIRST-FINDING: the cache is cold ["),
        "{index}"
    );
    assert!(
        index.ends_with("</memory_index>\n"),
        "the index comes last: {given}"
    );

    // The line's id fetches the body.
    let line = index.lines().find(|l| l.starts_with("- ")).unwrap();
    let id = line.rsplit('[').next().unwrap().trim_end_matches(']');
    let shown = agentctx(&t, &["mem", "show", id], "");
    assert!(shown.contains("FIRST-BODY: details."), "{shown}");

    // A capture made during the session does not change its index: a
    // compaction gives the same bytes; the next session sees it.
    capture(
        &t,
        &root,
        "a2",
        "🎯 COMPLETED: [AGENT:researcher] SECOND-FINDING",
    );
    let compact = payload(&t, &worktree, "claude-SessionStart-compact.json", "s-1");
    let again = context(&t, &compact, &[]);
    assert_eq!(&again[again.find("<memory_index").unwrap()..], index);
    let next = context(
        &t,
        &payload(&t, &worktree, "claude-SessionStart-startup.json", "s-2"),
        &[],
    );
    assert!(
        next.contains("SECOND-FINDING") && next.contains("FIRST-FINDING"),
        "{next}"
    );

    // An unrelated project gets nothing, and its searches see nothing here.
    let unrelated = context(
        &t,
        &payload(&t, &other, "claude-SessionStart-startup.json", "s-3"),
        &[],
    );
    assert!(!unrelated.contains("memory_index"), "{unrelated}");
    let mut search = t.cmd();
    search
        .current_dir(&other)
        .env("AGENTMEM_ROOT", t.dir.path().join("memory"))
        .args(["mem", "search", "--this-project", "FINDING"]);
    let (code, found, _) = run(&mut search);
    assert_eq!((code, found.as_str()), (0, ""));
    let mut search = t.cmd();
    search
        .current_dir(&worktree)
        .env("AGENTMEM_ROOT", t.dir.path().join("memory"))
        .args(["mem", "search", "--this-project", "FINDING"]);
    assert_eq!(
        run(&mut search)
            .1
            .lines()
            .filter(|l| !l.starts_with(' '))
            .count(),
        2
    );
}

#[test]
fn the_switches_turn_recall_off_and_sub_agents_get_none_unless_asked() {
    let (t, root, _, _) = world();
    capture(
        &t,
        &root,
        "a1",
        "🎯 COMPLETED: [AGENT:researcher] A-FINDING",
    );
    let start = payload(&t, &root, "claude-SessionStart-startup.json", "s-off");
    let off = context(&t, &start, &["-c", "agentmem.recall.enabled=false"]);
    assert!(!off.contains("memory_index"), "{off}");
    let sub = payload(&t, &root, "claude-SubagentStart-researcher.json", "s-1");
    assert!(!context(&t, &sub, &[]).contains("memory_index"));
    // The config is the session's, fixed at its start: another session.
    let sub = payload(&t, &root, "claude-SubagentStart-researcher.json", "s-2");
    let asked = context(&t, &sub, &["-c", "agentmem.recall.subagents=true"]);
    assert!(asked.contains("A-FINDING"), "{asked}");
    // `agentctx context` shows what a session gets, or not.
    assert!(agentctx(&t, &["context"], "").contains("A-FINDING"));
    assert!(!agentctx(&t, &["context", "--no-memory"], "").contains("memory_index"));
}
