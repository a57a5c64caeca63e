//! `agentctx mem capture` through the binary: it never disturbs the agent.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests fail loudly")]

mod common;

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::Stdio;

use common::{TestEnv, fixture_memory};

fn memory_files(root: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "md") {
                found.push(path);
            }
        }
    }
    found
}

fn hook_json(agent_id: &str, message: &str) -> String {
    serde_json::json!({
        "session_id": "s-1",
        "transcript_path": "~/.claude/projects/x/s-1.jsonl",
        "cwd": "/work/app",
        "hook_event_name": "SubagentStop",
        "stop_hook_active": false,
        "agent_id": agent_id,
        "agent_type": "engineer",
        "agent_transcript_path": format!("~/.claude/projects/x/agent-{agent_id}.jsonl"),
        "last_assistant_message": message,
    })
    .to_string()
}

fn capture(t: &TestEnv, stdin: &str, env: &[(&str, &str)]) -> std::process::Output {
    let mut cmd = t.cmd();
    cmd.args(["mem", "capture"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (k, v) in env {
        cmd.env(k, v);
    }
    let mut child = cmd.spawn().unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stdin.as_bytes())
        .unwrap();
    child.wait_with_output().unwrap()
}

#[test]
fn capture_from_stdin_writes_a_file_and_prints_nothing() {
    let t = TestEnv::new();
    let out = capture(
        &t,
        &hook_json("a1", "🎯 COMPLETED: [AGENT:engineer] Fixed it"),
        &[],
    );
    assert_eq!(out.status.code(), Some(0));
    assert!(out.stdout.is_empty());
    let files = memory_files(&t.home.join(".agent-kit/MEMORY"));
    assert_eq!(files.len(), 1, "default root is ~/.agent-kit/MEMORY");
    let text = std::fs::read_to_string(&files[0]).unwrap();
    assert!(
        text.contains(&format!(
            "transcript_path: \"{}/.claude/projects/x/agent-a1.jsonl\"",
            t.home.display()
        )),
        "~ is expanded:\n{text}"
    );
}

#[test]
fn garbage_and_bad_config_still_exit_0_silently_and_are_logged() {
    let t = TestEnv::new();
    t.write(
        "project/.agentctx.yaml",
        "agents: {initial: {maxFiles: 0}}\n",
    );
    let out = capture(&t, "this is not json", &[]);
    assert_eq!(out.status.code(), Some(0));
    assert!(out.stdout.is_empty() && out.stderr.is_empty());
    let log = std::fs::read_to_string(t.home.join(".local/state/agentctx/agentmem.log")).unwrap();
    assert!(
        log.contains("config error, bad values dropped")
            && log.contains("failed: cannot read the hook input"),
        "{log}"
    );
    let out = capture(&t, "{}", &[("AGENTMEM_DEBUG", "1")]);
    assert_eq!(out.status.code(), Some(0));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("agentmem:"),
        "debug goes to stderr"
    );
}

#[test]
fn agentmem_root_wins_over_a_config_that_cannot_be_parsed() {
    let t = TestEnv::new();
    t.write("project/.agentctx.yaml", "agentmem: [root: /elsewhere\n");
    let root = t.home.join("chosen-memory");
    let out = capture(
        &t,
        &hook_json("r1", "🗣️ Engineer: landed where asked"),
        &[("AGENTMEM_ROOT", root.to_str().unwrap())],
    );
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(memory_files(&root).len(), 1, "AGENTMEM_ROOT is applied");
    assert!(memory_files(&t.home.join(".agent-kit/MEMORY")).is_empty());
}

#[test]
fn codex_notify_argument_is_accepted() {
    let t = TestEnv::new();
    let payload = serde_json::json!({"type": "agent-turn-complete", "thread-id": "th-1", "turn-id": "t-1", "cwd": "/w", "input-messages": ["hi"], "last-assistant-message": "🗣️ Codex: Done with the refactor"}).to_string();
    let out = t.cmd().args(["mem", "capture", &payload]).output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(out.stdout.is_empty());
    let files = memory_files(&t.home.join(".agent-kit/MEMORY"));
    assert_eq!(files.len(), 1);
    assert!(
        std::fs::read_to_string(&files[0])
            .unwrap()
            .contains("source: \"codex-notify\"")
    );
}

/// 40 distinct runs and 10 duplicates at once: exactly 40 files, none torn,
/// and one event line per attempt.
#[test]
fn fifty_concurrent_captures_land_exactly_once_each() {
    let t = TestEnv::new();
    let memory = t.dir.path().join("mem");
    let events = t.dir.path().join("events.jsonl");
    let env = [
        ("AGENTMEM_ROOT", memory.to_str().unwrap()),
        ("AGENTMEM_EVENTS_PATH", events.to_str().unwrap()),
    ];
    let children: Vec<_> = (0..50)
        .map(|i| {
            let run = if i < 40 { i } else { i - 40 };
            let mut cmd = t.cmd();
            cmd.args(["mem", "capture"])
                .stdin(Stdio::piped())
                .stdout(Stdio::piped());
            for (k, v) in env {
                cmd.env(k, v);
            }
            let mut child = cmd.spawn().unwrap();
            let json = hook_json(
                &format!("run-{run}"),
                &format!(
                    "🗣️ Engineer: Finished task {run}\n\n{}",
                    "body ".repeat(2000)
                ),
            );
            child
                .stdin
                .take()
                .unwrap()
                .write_all(json.as_bytes())
                .unwrap();
            child
        })
        .collect();
    for child in children {
        let out = child.wait_with_output().unwrap();
        assert_eq!(out.status.code(), Some(0));
        assert!(out.stdout.is_empty());
    }
    let files = memory_files(&memory);
    assert_eq!(files.len(), 40);
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        assert!(
            text.starts_with("---\n") && text.contains("**Captured:**"),
            "torn: {}",
            file.display()
        );
    }
    let lines: Vec<serde_json::Value> = std::fs::read_to_string(&events)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 50);
    assert_eq!(
        lines.iter().filter(|e| e["outcome"] == "captured").count(),
        40
    );
    assert_eq!(
        lines.iter().filter(|e| e["outcome"] == "duplicate").count(),
        10
    );
    assert!(
        lines
            .iter()
            .all(|e| e["source_app"] == "claude" && e["source"] == "claude-hook")
    );
}

#[test]
fn a_capture_is_searchable_at_once_and_list_json_has_records() {
    let t = TestEnv::new();
    let root = fixture_memory(&t);
    let env = [("AGENTMEM_ROOT", root.to_str().unwrap())];
    let out = capture(
        &t,
        &hook_json("z1", "🗣️ Engineer: Tuned the quokka cache"),
        &env,
    );
    assert_eq!(out.status.code(), Some(0));
    let (code, stdout, _) = common::run(
        t.cmd()
            .args(["mem", "search", "quokka", "--json"])
            .env("AGENTMEM_ROOT", &root),
    );
    assert_eq!(code, 0);
    let hits: Vec<serde_json::Value> = serde_json::from_str(&stdout).unwrap();
    assert_eq!(hits.len(), 1);
    assert_eq!(hits[0]["category"], "IMPLEMENTATION");
    let (_, list, _) = common::run(
        t.cmd()
            .args([
                "mem",
                "list",
                "--json",
                "--category",
                "research",
                "--limit",
                "2",
            ])
            .env("AGENTMEM_ROOT", &root),
    );
    let records: Vec<serde_json::Value> = serde_json::from_str(&list).unwrap();
    assert_eq!(records.len(), 2);
    assert!(records.iter().all(|r| r["category"] == "RESEARCH"));
}

#[test]
fn bad_query_is_exit_2_and_context_fits_its_budget() {
    let t = TestEnv::new();
    let root = fixture_memory(&t);
    let (code, _, stderr) = common::run(
        t.cmd()
            .args(["mem", "search", "\"unclosed"])
            .env("AGENTMEM_ROOT", &root),
    );
    assert_eq!(code, 2);
    assert!(
        stderr.contains("invalid search query: the quote at character 1 is not closed"),
        "{stderr}"
    );
    let (code, text, _) = common::run(
        t.cmd()
            .args(["mem", "context", "auth", "--max-tokens", "120"])
            .env("AGENTMEM_ROOT", &root),
    );
    assert_eq!(code, 0);
    assert!(
        text.starts_with("<memory_context query=\"auth\">\n")
            && text.ends_with("</memory_context>\n"),
        "{text}"
    );
    assert_eq!(
        text.matches("## ").count(),
        1,
        "only what fits 120 tokens: {text}"
    );
}

/// A memory folder where no index file can be made (neither beside the
/// captures nor in the cache: files stand where the folders would go) is
/// still searched, with a note on stderr and exit 0.
#[test]
fn a_memory_folder_nothing_can_be_written_for_is_searched_with_a_note() {
    let t = TestEnv::new();
    let root = fixture_memory(&t);
    let beside = root.join(".agentmem");
    if beside.is_dir() {
        std::fs::remove_dir_all(&beside).unwrap();
    }
    std::fs::write(&beside, "not a folder").unwrap();
    let cache = t.write("cache-is-a-file", "x");
    let (code, stdout, stderr) = common::run(
        t.cmd()
            .args(["mem", "search", "auth", "--json"])
            .env("AGENTMEM_ROOT", &root)
            .env("XDG_CACHE_HOME", &cache),
    );
    assert_eq!(code, 0, "{stderr}");
    let hits: Vec<serde_json::Value> = serde_json::from_str(&stdout).unwrap();
    assert!(!hits.is_empty());
    assert!(stderr.contains("kept in memory for this run"), "{stderr}");
}
