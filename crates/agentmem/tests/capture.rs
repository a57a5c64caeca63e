//! Capture, one test per complaint users of PAI's capture hook report, plus
//! snapshots of the written Markdown (fixed clock and zone).

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests fail loudly")]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use agentctx_agentmem::{CaptureOutcome, CaptureSettings, Trigger, capture};
use agentctx_types::{CodexNotify, HookInput};

fn fixtures() -> PathBuf {
    std::fs::canonicalize(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/transcripts"))
        .unwrap()
}

fn settings(root: &Path) -> CaptureSettings {
    CaptureSettings {
        root: root.to_path_buf(),
        codex_sessions: fixtures().join("codex"),
        retries: 2,
        retry_delay: Duration::from_millis(50),
        redact: true,
        now: "2026-01-25T09:12:00+09:00[Asia/Tokyo]".parse().unwrap(),
    }
}

fn hook(transcript: &Path) -> HookInput {
    HookInput {
        session_id: Some("s-1".into()),
        transcript_path: Some(transcript.display().to_string()),
        cwd: Some("/work/app".into()),
        hook_event_name: Some("SubagentStop".into()),
        ..HookInput::default()
    }
}

fn captured(outcome: CaptureOutcome) -> PathBuf {
    match outcome {
        CaptureOutcome::Captured { path, .. } => path,
        other => panic!("expected a capture, got {other:?}"),
    }
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap()
}

fn files_in(root: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() && !path.ends_with(".agentmem") {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "md") {
                found.push(path);
            }
        }
    }
    found.sort();
    found
}

/// Replaces the temp root so snapshots are stable.
fn stable(text: &str, root: &Path) -> String {
    text.replace(&fixtures().display().to_string(), "[FIXTURES]")
        .replace(&root.display().to_string(), "[MEMORY]")
}

#[test]
fn task_era_capture_is_written_in_the_documented_format() {
    let mem = tempfile::tempdir().unwrap();
    let path = captured(
        capture(
            &Trigger::hook(hook(&fixtures().join("claude-task.jsonl"))),
            &settings(mem.path()),
            None,
        )
        .unwrap(),
    );
    assert!(path.ends_with("RESEARCH/2026-01/2026-01-25-091200_AGENT-researcher_RESEARCH_found-the-auth-race-in-token-refresh.md"), "{}", path.display());
    insta::assert_snapshot!(stable(&read(&path), mem.path()));
}

#[test]
fn agent_era_after_the_task_rename_is_captured_too() {
    let mem = tempfile::tempdir().unwrap();
    let path = captured(
        capture(
            &Trigger::hook(hook(&fixtures().join("claude-agent.jsonl"))),
            &settings(mem.path()),
            None,
        )
        .unwrap(),
    );
    let text = read(&path);
    assert!(
        path.to_string_lossy()
            .contains("_AGENT-engineer_IMPLEMENTATION_fixed-auth-race-refresh-is-atomic-now"),
        "{}",
        path.display()
    );
    assert!(text.contains("Changed refresh to compare-and-swap."));
}

#[test]
fn async_launch_acknowledgement_is_not_the_output() {
    let mem = tempfile::tempdir().unwrap();
    let path = captured(
        capture(
            &Trigger::hook(hook(&fixtures().join("claude-async.jsonl"))),
            &settings(mem.path()),
            None,
        )
        .unwrap(),
    );
    let text = read(&path);
    assert!(!text.contains("Async agent launched"), "{text}");
    assert!(text.contains("Proposed a compact header"), "{text}");
    // With the hook's own fields, the background agent's real output wins.
    let mut h = hook(&fixtures().join("claude-async.jsonl"));
    h.agent_id = Some("a-77".into());
    h.agent_type = Some("pentester".into());
    h.agent_transcript_path = Some("/tmp/agent-a-77.jsonl".into());
    h.last_assistant_message = Some("🗣️ Pentester: No known CVEs in the lockfile".into());
    let path = captured(capture(&Trigger::hook(h), &settings(mem.path()), None).unwrap());
    assert!(
        path.to_string_lossy().contains("SECURITY"),
        "{}",
        path.display()
    );
}

#[test]
fn hook_before_the_result_is_flushed_retries_and_captures() {
    let mem = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    let transcript = work.path().join("t.jsonl");
    let call = r#"{"type":"assistant","message":{"role":"assistant","content":[{"type":"tool_use","id":"toolu_r","name":"Task","input":{"description":"d","subagent_type":"researcher"}}]}}"#;
    std::fs::write(&transcript, format!("{call}\n")).unwrap();
    let late = transcript.clone();
    let writer = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(60));
        let result = r#"{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_r","content":"🗣️ Researcher: Arrived late"}]}}"#;
        let mut f = std::fs::OpenOptions::new()
            .append(true)
            .open(&late)
            .unwrap();
        std::io::Write::write_all(&mut f, format!("{result}\n").as_bytes()).unwrap();
    });
    let mut s = settings(mem.path());
    s.retry_delay = Duration::from_millis(100);
    let path = captured(capture(&Trigger::hook(hook(&transcript)), &s, None).unwrap());
    writer.join().unwrap();
    assert!(read(&path).contains("Arrived late"));
}

#[test]
fn the_same_run_is_captured_once_however_many_hooks_fire() {
    let mem = tempfile::tempdir().unwrap();
    let trigger = Trigger::hook(hook(&fixtures().join("claude-task.jsonl")));
    let outcomes: Vec<CaptureOutcome> = (0..6)
        .map(|_| capture(&trigger, &settings(mem.path()), None).unwrap())
        .collect();
    assert!(matches!(outcomes[0], CaptureOutcome::Captured { .. }));
    assert!(
        outcomes[1..]
            .iter()
            .all(|o| matches!(o, CaptureOutcome::Duplicate { .. }))
    );
    assert_eq!(files_in(mem.path()).len(), 1);
}

#[test]
fn a_second_capture_in_the_same_second_does_not_overwrite_the_first() {
    let mem = tempfile::tempdir().unwrap();
    let mut first = hook(Path::new("/nonexistent"));
    first.agent_transcript_path = Some("/tmp/a.jsonl".into());
    first.last_assistant_message = Some("🗣️ Researcher: Same words".into());
    first.agent_id = Some("run-1".into());
    let mut second = first.clone();
    second.agent_id = Some("run-2".into());
    second.last_assistant_message = Some("🗣️ Researcher: Same words\n\nbut another run".into());
    let a = captured(capture(&Trigger::hook(first), &settings(mem.path()), None).unwrap());
    let b = captured(capture(&Trigger::hook(second), &settings(mem.path()), None).unwrap());
    assert_ne!(a, b);
    assert!(
        b.to_string_lossy().ends_with("_same-words-2.md"),
        "{}",
        b.display()
    );
    assert!(read(&a).contains("Same words") && read(&b).contains("another run"));
}

#[test]
fn cjk_description_becomes_the_file_name_not_an_empty_one() {
    let mem = tempfile::tempdir().unwrap();
    let mut h = hook(Path::new("/nonexistent"));
    h.agent_transcript_path = Some("/tmp/a.jsonl".into());
    h.last_assistant_message = Some("🗣️ 認証フローを調査しました".into());
    h.agent_id = Some("cjk".into());
    let path = captured(capture(&Trigger::hook(h), &settings(mem.path()), None).unwrap());
    assert!(
        path.to_string_lossy()
            .ends_with("_認証フローを調査しました.md"),
        "{}",
        path.display()
    );
    // Nothing usable at all: a short hash, never an empty name.
    let mut h = hook(Path::new("/nonexistent"));
    h.agent_transcript_path = Some("/tmp/a.jsonl".into());
    h.last_assistant_message = Some("🎯 COMPLETED: ---".into());
    h.agent_id = Some("empty".into());
    let path = captured(capture(&Trigger::hook(h), &settings(mem.path()), None).unwrap());
    let name = path.file_name().unwrap().to_string_lossy().into_owned();
    assert!(
        !name.ends_with("_.md") && name.len() > "2026-01-25-091200_AGENT-x_RESEARCH_.md".len(),
        "{name}"
    );
}

#[test]
fn frontmatter_values_round_trip_through_a_yaml_parser() {
    let mem = tempfile::tempdir().unwrap();
    let mut h = hook(Path::new("/nonexistent"));
    h.agent_transcript_path = Some("/tmp/a: b.jsonl".into());
    let completion = "Decision: use \"quotes\" & colons: everywhere # not a comment";
    h.last_assistant_message = Some(format!("🗣️ Architect: {completion}"));
    h.agent_id = Some("yaml".into());
    let path = captured(capture(&Trigger::hook(h), &settings(mem.path()), None).unwrap());
    let text = read(&path);
    let frontmatter = text.split("---\n").nth(1).unwrap();
    let parsed: BTreeMap<String, String> = serde_saphyr::from_str(frontmatter).unwrap();
    assert_eq!(parsed["agent_completion"], completion);
    assert_eq!(parsed["transcript_path"], "/tmp/a: b.jsonl");
    assert_eq!(parsed["timestamp"], "2026-01-25 09:12:00 JST");
}

#[test]
fn a_huge_transcript_costs_what_its_last_turn_costs() {
    let mem = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    let transcript = work.path().join("huge.jsonl");
    // 512 MiB of history (sparse: the test must not need the disk space),
    // then the last turn.
    let tail = std::fs::read(fixtures().join("claude-task.jsonl")).unwrap();
    let file = std::fs::File::create(&transcript).unwrap();
    file.set_len(512 * 1024 * 1024).unwrap();
    drop(file);
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(&transcript)
        .unwrap();
    std::io::Write::write_all(&mut f, b"\n").unwrap();
    std::io::Write::write_all(&mut f, &tail).unwrap();
    let started = std::time::Instant::now();
    let path = captured(
        capture(
            &Trigger::hook(hook(&transcript)),
            &settings(mem.path()),
            None,
        )
        .unwrap(),
    );
    let took = started.elapsed();
    assert!(read(&path).contains("Found the auth race"));
    assert!(
        took < Duration::from_millis(500),
        "took {took:?}: the file must not be read whole"
    );
}

#[test]
fn half_written_last_line_is_skipped_not_an_error() {
    let mem = tempfile::tempdir().unwrap();
    let path = captured(
        capture(
            &Trigger::hook(hook(&fixtures().join("claude-half-written.jsonl"))),
            &settings(mem.path()),
            None,
        )
        .unwrap(),
    );
    assert!(read(&path).contains("Summarised the docs"));
}

#[test]
fn secrets_are_masked_and_counted_and_redact_false_keeps_them() {
    let mem = tempfile::tempdir().unwrap();
    let mut h = hook(Path::new("/nonexistent"));
    h.agent_transcript_path = Some("/tmp/a.jsonl".into());
    h.last_assistant_message = Some("🗣️ Engineer: Rotated ghp_abcdefghijklmnopqrstuvwxyz0123456789\nGITHUB_TOKEN=ghp_abcdefghijklmnopqrstuvwxyz0123456789\nAKIAIOSFODNN7EXAMPLE".into());
    h.agent_id = Some("secret".into());
    let path = captured(capture(&Trigger::hook(h.clone()), &settings(mem.path()), None).unwrap());
    let text = read(&path);
    assert!(
        !text.contains("ghp_abc") && !text.contains("AKIAIOSFODNN7EXAMPLE"),
        "{text}"
    );
    assert!(text.contains("[REDACTED:github-token]") && text.contains("[REDACTED:aws-access-key]"));
    assert!(
        text.contains("redactions: \"4\"") && text.contains("**Redactions:** 4"),
        "{text}"
    );
    let other = tempfile::tempdir().unwrap();
    let mut s = settings(other.path());
    s.redact = false;
    let path = captured(capture(&Trigger::hook(h), &s, None).unwrap());
    assert!(read(&path).contains("AKIAIOSFODNN7EXAMPLE"));
}

#[test]
fn codex_notify_prefers_the_task_like_call_output() {
    let mem = tempfile::tempdir().unwrap();
    let notify = CodexNotify {
        kind: Some("agent-turn-complete".into()),
        thread_id: Some("thread-abc".into()),
        turn_id: Some("t1".into()),
        cwd: Some("/work/app".into()),
        last_assistant_message: Some("The architect chose REST.".into()),
        ..CodexNotify::default()
    };
    let path =
        captured(capture(&Trigger::CodexNotify(notify), &settings(mem.path()), None).unwrap());
    assert!(
        path.to_string_lossy()
            .contains("_AGENT-architect_DECISION_chose-rest-with-cursor-pagination"),
        "{}",
        path.display()
    );
    let text = read(&path);
    assert!(
        text.contains("source: \"codex-notify\"") && text.contains("call_id: \"call_9\""),
        "{text}"
    );
}

#[test]
fn codex_rollout_with_only_messages_and_the_directory_form() {
    let mem = tempfile::tempdir().unwrap();
    let notify = |thread: &str| CodexNotify {
        kind: Some("agent-turn-complete".into()),
        thread_id: Some(thread.into()),
        turn_id: Some(format!("turn-{thread}")),
        ..CodexNotify::default()
    };
    let a = captured(
        capture(
            &Trigger::CodexNotify(notify("thread-msg")),
            &settings(mem.path()),
            None,
        )
        .unwrap(),
    );
    assert!(read(&a).contains("Listed the project files"));
    let b = captured(
        capture(
            &Trigger::CodexNotify(notify("thread-dir")),
            &settings(mem.path()),
            None,
        )
        .unwrap(),
    );
    assert!(read(&b).contains("Migrated the database"));
    assert!(
        read(&b).contains(
            "transcript_path: \"[FIXTURES]"
                .replace("[FIXTURES]", &fixtures().display().to_string())
                .as_str()
        )
    );
}

#[test]
fn nothing_to_capture_is_skipped() {
    let mem = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    let transcript = work.path().join("plain.jsonl");
    std::fs::write(
        &transcript,
        "{\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":\"hi\"}}\n",
    )
    .unwrap();
    let mut s = settings(mem.path());
    s.retries = 0;
    assert!(matches!(
        capture(&Trigger::hook(hook(&transcript)), &s, None).unwrap(),
        CaptureOutcome::Skipped { .. }
    ));
    assert!(files_in(mem.path()).is_empty());
}
