//! `agentctx hook`'s stdin is bounded in size and time: a writer that never
//! closes it, or sends more than a payload can be, gets an answer (a
//! denial for a tool call under rules that restrict) and exit 0.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests fail loudly")]

mod common;

use std::io::Write as _;
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use common::TestEnv;
use serde_json::Value;

/// A git project whose rules restrict (an excluded folder).
fn restricted() -> TestEnv {
    let t = TestEnv::new();
    t.write("project/.git/HEAD", "ref: refs/heads/main\n");
    t.write(
        "project/.coding-agent-rules.yaml",
        "file_patterns:\n  exclude: [\"secrets/\"]\n",
    );
    t
}

fn spawn_hook(t: &TestEnv, args: &[&str]) -> Child {
    t.cmd()
        .arg("hook")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// Waits at most `bound` for the hook; returns its exit code, stdout and
/// how long it took (a hook that hangs fails the test, killed).
fn finish(mut child: Child, bound: Duration) -> (i32, String, Duration) {
    let started = Instant::now();
    loop {
        if child.try_wait().unwrap().is_some() {
            break;
        }
        if started.elapsed() > bound {
            let _ = child.kill();
            let _ = child.wait();
            panic!("the hook did not answer within {bound:?}");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let out = child.wait_with_output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        started.elapsed(),
    )
}

fn denial(out: &str) -> String {
    let reply: Value = serde_json::from_str(out).unwrap_or_else(|_| panic!("a reply: {out:?}"));
    assert_eq!(
        reply["hookSpecificOutput"]["permissionDecision"], "deny",
        "{reply}"
    );
    reply["hookSpecificOutput"]["permissionDecisionReason"]
        .as_str()
        .unwrap()
        .to_owned()
}

fn pre_tool_use_start(t: &TestEnv) -> String {
    let cwd = std::fs::canonicalize(&t.project).unwrap();
    format!(
        r#"{{"session_id":"s1","cwd":{},"hook_event_name":"PreToolUse","tool_name":"Write","tool_input":{{"file_path":"notes.md","content":""#,
        serde_json::to_string(&cwd.display().to_string()).unwrap()
    )
}

#[test]
fn a_writer_that_never_sends_or_closes_stdin_is_answered_within_the_read_deadline() {
    let t = restricted();
    let mut child = spawn_hook(&t, &["--agent", "claude"]);
    // `sleep 200 | agentctx hook`: the pipe stays open, nothing comes.
    let stdin = child.stdin.take().unwrap();
    let (code, out, took) = finish(child, Duration::from_secs(30));
    drop(stdin);
    assert_eq!(code, 0);
    assert!(took < Duration::from_secs(15), "{took:?}");
    // Nothing arrived: it may have been a tool call, and the rules restrict.
    let reason = denial(&out);
    assert!(reason.contains("did not end within 10"), "{reason}");
}

#[test]
fn a_tool_call_whose_input_stops_midway_is_denied_soon_after_its_first_bytes() {
    let t = restricted();
    let mut child = spawn_hook(&t, &["--agent", "claude"]);
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(pre_tool_use_start(&t).as_bytes()).unwrap();
    stdin.flush().unwrap();
    let (code, out, took) = finish(child, Duration::from_secs(30));
    drop(stdin);
    assert_eq!(code, 0);
    assert!(
        took < Duration::from_secs(9),
        "5 s after the first byte: {took:?}"
    );
    let reason = denial(&out);
    assert!(reason.contains("could not read this tool call"), "{reason}");
    assert!(reason.contains("did not end within 5"), "{reason}");
}

/// Writes `prefix`, then `total` bytes of a JSON string, then the end;
/// the hook stops reading long before (the write then fails: ignored).
fn flood(child: &mut Child, prefix: String, total: usize) -> std::thread::JoinHandle<()> {
    let mut stdin = child.stdin.take().unwrap();
    std::thread::spawn(move || {
        let _ = stdin.write_all(prefix.as_bytes());
        let chunk = vec![b'a'; 1024 * 1024];
        for _ in 0..total / chunk.len() {
            if stdin.write_all(&chunk).is_err() {
                return;
            }
        }
        let _ = stdin.write_all(b"\"}}");
    })
}

#[test]
fn a_tool_call_past_16_mib_is_denied_unread_under_rules_that_restrict_and_other_input_is_not() {
    let t = restricted();
    let mut child = spawn_hook(&t, &["--agent", "claude"]);
    let writer = flood(&mut child, pre_tool_use_start(&t), 64 * 1024 * 1024);
    let (code, out, _) = finish(child, Duration::from_secs(30));
    writer.join().unwrap();
    assert_eq!(code, 0);
    let reason = denial(&out);
    assert!(reason.contains("larger than 16 MiB"), "{reason}");

    // Another event that large gets no reply; a tool call where nothing
    // restricts is let through.
    let mut child = spawn_hook(&t, &["--agent", "claude"]);
    let start = pre_tool_use_start(&t).replace("PreToolUse", "PostToolUse");
    let writer = flood(&mut child, start, 20 * 1024 * 1024);
    let (code, out, _) = finish(child, Duration::from_secs(30));
    writer.join().unwrap();
    assert_eq!((code, out.as_str()), (0, ""));

    // No rule file, and agentctx's own files left unprotected.
    let open = TestEnv::new();
    open.write("project/.git/HEAD", "ref: refs/heads/main\n");
    let unprotected = "project_agent_rules.protect_config=false";
    let mut child = spawn_hook(&open, &["--agent", "claude", "-c", unprotected]);
    let writer = flood(&mut child, pre_tool_use_start(&open), 20 * 1024 * 1024);
    let (code, out, _) = finish(child, Duration::from_secs(30));
    writer.join().unwrap();
    assert_eq!((code, out.as_str()), (0, ""), "nothing restricts: allowed");
}

#[test]
fn an_unreadable_tool_call_of_the_event_install_named_is_denied() {
    // Copilot CLI's payloads name no event: install writes --event.
    let t = restricted();
    let mut child = spawn_hook(&t, &["--agent", "copilot", "--event", "preToolUse"]);
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(b"{not json").unwrap();
    drop(stdin);
    let (code, out, _) = finish(child, Duration::from_secs(30));
    assert_eq!(code, 0);
    let reply: Value = serde_json::from_str(&out).unwrap_or_else(|_| panic!("a reply: {out:?}"));
    assert_eq!(reply["permissionDecision"], "deny", "{reply}");
}

#[test]
fn mem_capture_reads_its_input_within_the_same_bounds() {
    let t = restricted();
    let child = t
        .cmd()
        .args(["mem", "capture"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut child = child;
    let stdin = child.stdin.take().unwrap();
    let (code, out, took) = finish(child, Duration::from_secs(30));
    drop(stdin);
    // A capture entry point never fails the agent and writes nothing out.
    assert_eq!(code, 0);
    assert!(out.is_empty(), "{out}");
    assert!(took < Duration::from_secs(15), "{took:?}");
    let log = std::fs::read_to_string(t.home.join(".local/state/agentctx/agentmem.log")).unwrap();
    assert!(log.contains("did not end within 10"), "{log}");
}
