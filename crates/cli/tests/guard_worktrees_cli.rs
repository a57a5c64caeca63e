//! The file tools in the worktrees Claude Code keeps in
//! `<project>/.claude/worktrees/<name>` (measured with Claude Code
//! 2.1.330): after `EnterWorktree` (and in a sub-agent with `isolation:
//! "worktree"`) the hooks' `cwd` is the worktree while `CLAUDE_PROJECT_DIR`
//! stays the project; with `claude --worktree NAME` both are the worktree.
//! Either way work in the worktree is work in the project: its files may be
//! edited, its protected files (`.claude/`, the rule file, `.git`) may not,
//! and the rules' excludes, anchored ones too, hold there as in the
//! project. The payloads are the recorded 2.1.330 `PreToolUse` of
//! `Write`, with the tool and input of each call.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests fail loudly")]

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use common::{TestEnv, claude_payload};
use serde_json::{Value, json};

/// A project (a git repository) with `cfg/prod/` excluded by an anchored
/// pattern, and a worktree `feat` made where and as Claude Code makes one
/// (`git worktree add .claude/worktrees/feat -b worktree-feat`).
fn project() -> (TestEnv, PathBuf) {
    let t = TestEnv::new();
    t.write("project/src/lib.rs", "pub fn f() {}\n");
    t.write("project/cfg/prod/db.txt", "PROD-SECRET\n");
    t.write("project/cfg/dev/db.txt", "dev\n");
    t.write(
        "project/.coding-agent-rules.yaml",
        "file_patterns:\n  exclude: [\"/cfg/prod/\", \"secrets/\"]\n",
    );
    t.write("project/.claude/settings.json", "{}\n");
    git(&t.project, &["init", "-q", "-b", "main"]);
    git(&t.project, &["add", "-A"]);
    git(&t.project, &["commit", "-qm", "start"]);
    git(
        &t.project,
        &[
            "worktree",
            "add",
            "-q",
            ".claude/worktrees/feat",
            "-b",
            "worktree-feat",
        ],
    );
    let project = std::fs::canonicalize(&t.project).unwrap();
    let worktree = project.join(".claude/worktrees/feat");
    assert!(worktree.join(".git").is_file());
    assert!(worktree.join("cfg/prod/db.txt").is_file());
    (t, worktree)
}

fn git(dir: &Path, args: &[&str]) {
    let status = Command::new("git")
        .args(["-c", "user.email=t@example.invalid", "-c", "user.name=t"])
        .args(args)
        .current_dir(dir)
        .stdout(Stdio::null())
        .status()
        .unwrap();
    assert!(status.success(), "git {args:?}");
}

/// The hook with `payload`, its process where Claude Code starts it (the
/// payload's `cwd`) and `CLAUDE_PROJECT_DIR` as Claude Code sets it.
fn hook(t: &TestEnv, project_dir: &Path, cwd: &Path, payload: &str) -> String {
    use std::io::Write as _;
    let mut child = t
        .cmd()
        .arg("hook")
        .env("CLAUDE_PROJECT_DIR", project_dir)
        .env("AGENTMEM_ROOT", t.dir.path().join("memory"))
        .current_dir(cwd)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(payload.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// Starts session `session` in `start` (what `CLAUDE_PROJECT_DIR` says).
fn start(t: &TestEnv, start: &Path, session: &str) {
    let payload = claude_payload(t, start, "claude-SessionStart-startup.json", session);
    hook(t, start, start, &payload);
}

/// The hook's answer to `tool` with `input`, called from `cwd`.
fn decide(
    t: &TestEnv,
    session: &str,
    project_dir: &Path,
    cwd: &Path,
    tool: &str,
    input: Value,
) -> String {
    let mut payload: Value = serde_json::from_str(&claude_payload(
        t,
        cwd,
        "claude-PreToolUse-Write.json",
        session,
    ))
    .unwrap();
    payload["tool_name"] = tool.into();
    payload["tool_input"] = input;
    hook(t, project_dir, cwd, &payload.to_string())
}

/// Whether Claude Code refuses the call on `answer`: it reads
/// `hookSpecificOutput.permissionDecision` of a `PreToolUse` reply; an
/// empty answer lets the call run; any other shape fails the test.
fn denied(answer: &str) -> bool {
    if answer.trim().is_empty() {
        return false;
    }
    let reply: Value =
        serde_json::from_str(answer).unwrap_or_else(|e| panic!("not JSON ({e}): {answer}"));
    let out = &reply["hookSpecificOutput"];
    assert_eq!(out["hookEventName"], "PreToolUse", "{answer}");
    match out["permissionDecision"].as_str() {
        Some("deny") => {
            assert!(
                out["permissionDecisionReason"]
                    .as_str()
                    .is_some_and(|r| !r.is_empty()),
                "a denial without its reason: {answer}"
            );
            true
        }
        None | Some("allow") => false,
        Some(other) => panic!("a decision agentctx never gives here ({other}): {answer}"),
    }
}

fn edit(path: &str) -> (&'static str, Value) {
    (
        "Edit",
        json!({"file_path": path, "old_string": "f()", "new_string": "g()"}),
    )
}

fn write(path: &str) -> (&'static str, Value) {
    ("Write", json!({"file_path": path, "content": "x"}))
}

fn read(path: &str) -> (&'static str, Value) {
    ("Read", json!({"file_path": path}))
}

#[test]
fn file_tools_in_a_worktree_entered_mid_session_work_as_in_the_project() {
    let (t, worktree) = project();
    let project = worktree.ancestors().nth(3).unwrap().to_path_buf();
    start(&t, &project, "wt1");
    // After EnterWorktree: the call's cwd is the worktree, CLAUDE_PROJECT_DIR
    // the project.
    let call = |(tool, input): (&str, Value)| {
        let answer = decide(&t, "wt1", &project, &worktree, tool, input.clone());
        (denied(&answer), format!("{tool} {input}: {answer}"))
    };
    let at = |relative: &str| worktree.join(relative).display().to_string();
    for allowed in [
        edit("src/lib.rs"),
        edit(&at("src/lib.rs")),
        write(&at("src/new.rs")),
        write("notes/plan.md"),
        read("cfg/dev/db.txt"),
        read(&at("cfg/dev/db.txt")),
    ] {
        let (denied, what) = call(allowed);
        assert!(!denied, "work in the worktree is refused: {what}");
    }
    for refused in [
        // The copy of the project's anchored-excluded folder.
        read("cfg/prod/db.txt"),
        read(&at("cfg/prod/db.txt")),
        // The worktree's own protected files.
        write(".claude/settings.json"),
        write(&at(".claude/settings.local.json")),
        write(".coding-agent-rules.yaml"),
        write(".agentctx.yaml"),
        write(".mcp.json"),
        write(".git"),
        // The project's, as before.
        write(&project.join(".claude/settings.json").display().to_string()),
        read(&project.join("cfg/prod/db.txt").display().to_string()),
    ] {
        let (denied, what) = call(refused);
        assert!(denied, "allowed: {what}");
    }
    // A search of the folder runs without it (Claude Code's Grep is
    // narrowed, not denied: issue 38).
    let (_, what) = call(("Grep", json!({"pattern": "SECRET", "path": at("cfg")})));
    assert!(
        what.contains(r#""glob":"!**/prod""#),
        "not narrowed: {what}"
    );
}

#[test]
fn file_tools_in_a_worktree_session_work_as_in_the_project() {
    let (t, worktree) = project();
    let project = worktree.ancestors().nth(3).unwrap().to_path_buf();
    // `claude --worktree feat`: the session starts in the worktree, which
    // is its root.
    start(&t, &worktree, "wt2");
    let call = |(tool, input): (&str, Value)| {
        let answer = decide(&t, "wt2", &worktree, &worktree, tool, input.clone());
        (denied(&answer), format!("{tool} {input}: {answer}"))
    };
    let main = |relative: &str| project.join(relative).display().to_string();
    for allowed in [
        edit("src/lib.rs"),
        write("src/new.rs"),
        read("cfg/dev/db.txt"),
        read(&main("cfg/dev/db.txt")),
    ] {
        let (denied, what) = call(allowed);
        assert!(!denied, "work in the worktree is refused: {what}");
    }
    for refused in [
        read("cfg/prod/db.txt"),
        // The project's own excluded folder, from its worktree.
        read(&main("cfg/prod/db.txt")),
        read("../../../cfg/prod/db.txt"),
        // The worktree's protected files.
        write(".claude/settings.json"),
        write(".git"),
        // The project's settings, which Claude Code reads in a worktree
        // session too (its `settings.local.json`, its `.mcp.json`).
        write(&main(".claude/settings.local.json")),
        write(&main(".mcp.json")),
        write(&main(".coding-agent-rules.yaml")),
    ] {
        let (denied, what) = call(refused);
        assert!(denied, "allowed: {what}");
    }
}
