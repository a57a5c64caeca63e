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
        identity: Default::default(),
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

/// A session recorded by the end-to-end suite (`claude_eras.rs`) with
/// Claude Code `version`: its transcript and its session id.
fn recorded_session(version: &str) -> (PathBuf, String) {
    let dir = fixtures().join(format!("claude-{version}"));
    let transcript = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .find(|p| {
            p.extension().is_some_and(|e| e == "jsonl")
                && !p
                    .file_name()
                    .unwrap()
                    .to_string_lossy()
                    .starts_with("agent-")
        })
        .unwrap();
    let session = transcript
        .file_stem()
        .unwrap()
        .to_string_lossy()
        .into_owned();
    (transcript, session)
}

/// `SubagentStop` as Claude Code before 2.0.42 sends it: nothing of the
/// agent (fields as the end-to-end suite saw them).
fn old_subagent_stop(transcript: &Path, session: &str) -> HookInput {
    let mut h = hook(transcript);
    h.session_id = Some(session.into());
    h
}

/// Calls `capture` until it skips; returns every output captured.
fn capture_until_skipped(trigger: &Trigger, root: &Path) -> Vec<String> {
    let mut s = settings(root);
    s.retries = 0;
    let mut outputs = Vec::new();
    for _ in 0..8 {
        match capture(trigger, &s, None).unwrap() {
            CaptureOutcome::Captured { path, .. } => outputs.push(read(&path)),
            CaptureOutcome::Skipped { .. } => return outputs,
            other => panic!("expected a capture or a skip, got {other:?}"),
        }
    }
    panic!("never skipped: {} captures", outputs.len());
}

fn bodies(outputs: &[String]) -> Vec<&'static str> {
    let mut found: Vec<&'static str> = ["ONE-BODY", "P1-BODY", "P2-BODY"]
        .into_iter()
        .filter(|b| outputs.iter().any(|o| o.contains(b)))
        .collect();
    found.sort_unstable();
    found
}

#[test]
fn capture_is_written_in_the_documented_format() {
    let mem = tempfile::tempdir().unwrap();
    let (transcript, session) = recorded_session("2.1.40");
    let mut h = old_subagent_stop(&transcript, &session);
    // 2.0.42 – 2.1.46 name the agent and its transcript, not its message.
    h.agent_id = Some("a6e87a6".into());
    h.agent_transcript_path = Some(
        transcript
            .with_extension("")
            .join("subagents/agent-a6e87a6.jsonl")
            .display()
            .to_string(),
    );
    let path = captured(capture(&Trigger::hook(h), &settings(mem.path()), None).unwrap());
    assert!(
        path.ends_with(
            "IMPLEMENTATION/2026-01/2026-01-25-091200_AGENT-engineer_IMPLEMENTATION_fixed-the-build.md"
        ),
        "{}",
        path.display()
    );
    insta::assert_snapshot!(stable(&read(&path), mem.path()));
}

#[test]
fn claude_code_1_0_captures_each_parallel_sub_agent_once() {
    let mem = tempfile::tempdir().unwrap();
    let (transcript, session) = recorded_session("1.0.128");
    let outputs = capture_until_skipped(
        &Trigger::hook(old_subagent_stop(&transcript, &session)),
        mem.path(),
    );
    assert_eq!(outputs.len(), 3, "{outputs:#?}");
    assert_eq!(bodies(&outputs), ["ONE-BODY", "P1-BODY", "P2-BODY"]);
    // The description comes from the parent's call, found by the prompt.
    assert!(
        outputs.iter().any(|o| o.contains("Fix the build")),
        "{outputs:#?}"
    );
}

#[test]
fn claude_code_2_0_flat_agent_files_are_captured_once_each_without_warmups() {
    let mem = tempfile::tempdir().unwrap();
    let (transcript, session) = recorded_session("2.0.30");
    let outputs = capture_until_skipped(
        &Trigger::hook(old_subagent_stop(&transcript, &session)),
        mem.path(),
    );
    assert_eq!(outputs.len(), 3, "{outputs:#?}");
    assert_eq!(bodies(&outputs), ["ONE-BODY", "P1-BODY", "P2-BODY"]);
    assert!(outputs.iter().all(|o| !o.contains("Warmup")));
    // Another session's agent files are never this session's.
    let other = tempfile::tempdir().unwrap();
    assert!(
        capture_until_skipped(
            &Trigger::hook(old_subagent_stop(&transcript, "another-session")),
            other.path(),
        )
        .is_empty()
    );
}

/// Claude Code 1.0.x and 2.0.x write a sub-agent's output only after its
/// SubagentStop returns: waiting there cannot help and stalled every
/// sub-agent (and 2.0.x's Warmup agents at every start) by the retries.
#[test]
fn subagent_stop_without_agent_fields_returns_at_once_despite_retries() {
    for version in ["1.0.128", "2.0.30"] {
        let mem = tempfile::tempdir().unwrap();
        let (transcript, session) = recorded_session(version);
        // Everything already captured: the state at a real SubagentStop,
        // where the stopping agent's own output is not on disk yet.
        capture_until_skipped(
            &Trigger::hook(old_subagent_stop(&transcript, &session)),
            mem.path(),
        );
        let mut s = settings(mem.path());
        s.retries = 2;
        s.retry_delay = Duration::from_secs(2);
        let started = std::time::Instant::now();
        let outcome = capture(
            &Trigger::hook(old_subagent_stop(&transcript, &session)),
            &s,
            None,
        )
        .unwrap();
        let took = started.elapsed();
        // Less than one wait of 2 s.
        assert!(took < Duration::from_millis(1900), "{version}: {took:?}");
        let CaptureOutcome::Skipped { reason } = outcome else {
            panic!("{version}: {outcome:?}");
        };
        assert!(reason.contains("PostToolUse of Task"), "{reason}");
        assert!(!reason.contains("read 3 times"), "{reason}");
    }
}

/// 2.0.x's Warmup agents stop before the session's transcript exists:
/// nothing to capture, which is no failure.
#[test]
fn subagent_stop_before_the_session_transcript_exists_is_skipped() {
    let mem = tempfile::tempdir().unwrap();
    let missing = mem.path().join("projects/p/not-yet.jsonl");
    let outcome = capture(
        &Trigger::hook(old_subagent_stop(&missing, "not-yet")),
        &settings(mem.path()),
        None,
    )
    .unwrap();
    assert!(
        matches!(outcome, CaptureOutcome::Skipped { .. }),
        "{outcome:?}"
    );
}

/// The recorded PostToolUse(Agent) payload (2.1.330).
fn recorded_post_tool_use() -> HookInput {
    serde_json::from_str(
        &std::fs::read_to_string(
            fixtures().join("../agents/claude-code-2.1.330/claude-PostToolUse-Agent.json"),
        )
        .unwrap(),
    )
    .unwrap()
}

#[test]
fn async_launch_acknowledgement_is_not_the_output() {
    let mem = tempfile::tempdir().unwrap();
    // The recorded payload with the recorded result of a background launch
    // (the `toolUseResult` 2.1.330 wrote to its transcript).
    let (transcript, _) = recorded_session("2.1.330");
    let launch = std::fs::read_to_string(&transcript)
        .unwrap()
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .find_map(|e| {
            e.get("toolUseResult")
                .filter(|r| r["status"] == "async_launched")
                .cloned()
        })
        .unwrap();
    let mut h = recorded_post_tool_use();
    h.tool_response = Some(launch);
    let mut s = settings(mem.path());
    s.retries = 0;
    assert!(matches!(
        capture(&Trigger::hook(h), &s, None).unwrap(),
        CaptureOutcome::Skipped { .. }
    ));
    // Its SubagentStop, when the agent is done, carries the real output.
    let stop: HookInput = serde_json::from_str(
        &std::fs::read_to_string(fixtures().join(
            "../agents/claude-code-2.1.330/claude-SubagentStop-researcher-background-running.json",
        ))
        .unwrap(),
    )
    .unwrap();
    let path = captured(capture(&Trigger::hook(stop), &s, None).unwrap());
    assert!(read(&path).contains("SUBAGENT-TWO-BODY"));
}

#[test]
fn hook_before_the_agent_transcript_is_flushed_retries_and_captures() {
    let mem = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    let (transcript, session) = recorded_session("2.1.40");
    let recorded = transcript
        .with_extension("")
        .join("subagents/agent-a6e87a6.jsonl");
    let lines = read(&recorded);
    let (first, rest) = lines.split_once('\n').unwrap();
    let late = work.path().join("agent-a6e87a6.jsonl");
    std::fs::write(&late, format!("{first}\n")).unwrap();
    let rest = rest.to_owned();
    let appended = late.clone();
    let writer = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(60));
        let mut f = std::fs::OpenOptions::new()
            .append(true)
            .open(&appended)
            .unwrap();
        std::io::Write::write_all(&mut f, rest.as_bytes()).unwrap();
    });
    let mut h = old_subagent_stop(&transcript, &session);
    h.agent_id = Some("a6e87a6".into());
    h.agent_transcript_path = Some(late.display().to_string());
    let mut s = settings(mem.path());
    s.retry_delay = Duration::from_millis(100);
    let path = captured(capture(&Trigger::hook(h), &s, None).unwrap());
    writer.join().unwrap();
    assert!(read(&path).contains("P1-BODY"));
}

#[test]
fn the_same_run_is_captured_once_however_many_hooks_fire() {
    let mem = tempfile::tempdir().unwrap();
    // PostToolUse(Agent) and SubagentStop of one run (both recorded).
    let post = Trigger::hook(recorded_post_tool_use());
    let stop = Trigger::hook(
        serde_json::from_str(
            &std::fs::read_to_string(
                fixtures()
                    .join("../agents/claude-code-2.1.330/claude-SubagentStop-researcher.json"),
            )
            .unwrap(),
        )
        .unwrap(),
    );
    let outcomes: Vec<CaptureOutcome> = [&post, &stop, &post, &stop, &stop, &post]
        .into_iter()
        .map(|t| capture(t, &settings(mem.path()), None).unwrap())
        .collect();
    assert!(matches!(outcomes[0], CaptureOutcome::Captured { .. }));
    assert!(
        outcomes[1..]
            .iter()
            .all(|o| matches!(o, CaptureOutcome::Duplicate { .. })),
        "{outcomes:#?}"
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
    // then the recorded 1.0.128 turn, whose sub-agents live in it.
    let (recorded, session) = recorded_session("1.0.128");
    let tail = std::fs::read(recorded).unwrap();
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
    let outputs = capture_until_skipped(
        &Trigger::hook(old_subagent_stop(&transcript, &session)),
        mem.path(),
    );
    let took = started.elapsed();
    assert_eq!(bodies(&outputs), ["ONE-BODY", "P1-BODY", "P2-BODY"]);
    assert!(
        took < Duration::from_millis(1000),
        "took {took:?} for four searches: the file must not be read whole"
    );
}

#[test]
fn half_written_last_line_is_skipped_not_an_error() {
    let mem = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    let (recorded, session) = recorded_session("1.0.128");
    let transcript = work.path().join("half.jsonl");
    let mut text = read(&recorded);
    text.push_str(
        r#"{"parentUuid":"x","isSidechain":true,"type":"assistant","message":{"role":"assis"#,
    );
    std::fs::write(&transcript, text).unwrap();
    let outputs = capture_until_skipped(
        &Trigger::hook(old_subagent_stop(&transcript, &session)),
        mem.path(),
    );
    assert_eq!(bodies(&outputs), ["ONE-BODY", "P1-BODY", "P2-BODY"]);
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

/// A Codex sessions folder holding the rollouts recorded from Codex
/// 0.169.0 (fixtures/agents/codex-0.169.0/), where notify finds them.
fn codex_sessions(dir: &Path) -> PathBuf {
    let recorded = fixtures().join("../agents/codex-0.169.0");
    let day = dir.join("sessions/2026/11/22");
    std::fs::create_dir_all(&day).unwrap();
    for (from, thread) in [
        (
            "rollout-notify-turn.jsonl",
            "01a20298-84c1-7eb1-9dcd-d2aac6d976d9",
        ),
        (
            "rollout-subagent-parent.jsonl",
            "01a20298-881d-76f1-8456-eacfc16f8aa1",
        ),
        (
            "rollout-subagent-child.jsonl",
            "01a20298-8a42-7430-a76b-76ffc5a4b7b3",
        ),
    ] {
        std::fs::copy(
            recorded.join(from),
            day.join(format!("rollout-2026-11-22T09-31-20-{thread}.jsonl")),
        )
        .unwrap();
    }
    dir.join("sessions")
}

fn recorded_notify(name: &str) -> CodexNotify {
    let text =
        std::fs::read_to_string(fixtures().join("../agents/codex-0.169.0").join(name)).unwrap();
    serde_json::from_str(&text).unwrap()
}

#[test]
fn codex_notify_of_a_main_turn_captures_the_main_answer() {
    let mem = tempfile::tempdir().unwrap();
    let mut s = settings(mem.path());
    s.codex_sessions = codex_sessions(mem.path());
    let notify = recorded_notify("notify-root-turn.json");
    let path = captured(capture(&Trigger::CodexNotify(notify.clone()), &s, None).unwrap());
    let text = read(&path);
    assert!(text.contains("Reviewed the API package layout"), "{text}");
    assert!(text.contains("source: \"codex-notify\""), "{text}");
    // The same turn again (or its Stop hook): nothing new.
    assert!(matches!(
        capture(&Trigger::CodexNotify(notify), &s, None).unwrap(),
        CaptureOutcome::Duplicate { .. }
    ));
}

#[test]
fn codex_sub_agent_output_is_captured_once_whichever_trigger_sees_it() {
    let mem = tempfile::tempdir().unwrap();
    let mut s = settings(mem.path());
    s.codex_sessions = codex_sessions(mem.path());
    let notify = recorded_notify("notify-subagent-turn.json");
    let path = captured(capture(&Trigger::CodexNotify(notify), &s, None).unwrap());
    let text = read(&path);
    assert!(
        text.contains("The API handler lives in packages/api/src/server.ts"),
        "{text}"
    );
    assert!(
        text.contains("description: \"SUBAGENT-TASK: find where the API handler lives\""),
        "{text}"
    );
    assert!(!text.contains("timed_out"), "{text}");
    // The SubagentStop hook for the same sub-agent (the recorded payload,
    // pointed at this sub-agent): a duplicate.
    let mut hook: HookInput = serde_json::from_str(
        &std::fs::read_to_string(
            fixtures().join("../agents/codex-0.169.0/hook-subagent-stop.json"),
        )
        .unwrap(),
    )
    .unwrap();
    hook.agent_id = Some("01a20298-8a42-7430-a76b-76ffc5a4b7b3".into());
    hook.agent_transcript_path = None;
    assert!(matches!(
        capture(&Trigger::hook(hook), &s, None).unwrap(),
        CaptureOutcome::Duplicate { .. }
    ));
}

#[test]
fn a_codex_turn_search_stops_at_the_turns_start() {
    let mem = tempfile::tempdir().unwrap();
    let mut s = settings(mem.path());
    s.codex_sessions = codex_sessions(mem.path());
    // The parent's turn: its answer, never the wait_agent JSON or an older turn's.
    let mut notify = recorded_notify("notify-root-turn.json");
    notify.thread_id = Some("01a20298-881d-76f1-8456-eacfc16f8aa1".into());
    notify.turn_id = Some("01a20298-8836-7041-a924-d5def91b36c1".into());
    notify.last_assistant_message = None;
    let path = captured(capture(&Trigger::CodexNotify(notify.clone()), &s, None).unwrap());
    let text = read(&path);
    assert!(text.contains("The researcher found it"), "{text}");
    assert!(!text.contains("timed_out"), "{text}");
    // A turn that is not in the rollout: nothing of another turn is taken.
    notify.turn_id = Some("a-later-turn".into());
    assert!(matches!(
        capture(&Trigger::CodexNotify(notify), &s, None).unwrap(),
        CaptureOutcome::Skipped { .. }
    ));
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

#[test]
fn claude_stop_captures_the_main_answer_not_an_old_sub_agent_output() {
    let mem = tempfile::tempdir().unwrap();
    // The recorded Stop payload, over a transcript whose last Task result is a sub-agent's.
    let mut stop: HookInput = serde_json::from_str(
        &std::fs::read_to_string(fixtures().join("../agents/claude-code-2.1.330/claude-Stop.json"))
            .unwrap(),
    )
    .unwrap();
    stop.transcript_path = Some(recorded_session("2.1.330").0.display().to_string());
    stop.last_assistant_message = Some("MAIN-ANSWER: the release is tagged.".into());
    let path =
        captured(capture(&Trigger::hook(stop.clone()), &settings(mem.path()), None).unwrap());
    let text = read(&path);
    assert!(text.contains("MAIN-ANSWER"), "{text}");
    // The same turn again: a duplicate.
    assert!(matches!(
        capture(&Trigger::hook(stop), &settings(mem.path()), None).unwrap(),
        CaptureOutcome::Duplicate { .. }
    ));
}

#[test]
fn a_long_type_and_a_long_japanese_completion_still_fit_in_255_bytes() {
    let mem = tempfile::tempdir().unwrap();
    let mut h = hook(Path::new("/nonexistent"));
    h.agent_transcript_path = Some("/tmp/a.jsonl".into());
    h.agent_type = Some("principal-distributed-systems-researcher-".repeat(4));
    h.last_assistant_message = Some(format!(
        "🎯 COMPLETED: {}",
        "認証フローの競合状態".repeat(6)
    ));
    h.agent_id = Some("long".into());
    for run in 0..3 {
        h.agent_id = Some(format!("long-{run}"));
        let path =
            captured(capture(&Trigger::hook(h.clone()), &settings(mem.path()), None).unwrap());
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        assert!(name.len() <= 255, "{} bytes: {name}", name.len());
        assert!(name.ends_with(".md") && name.contains("認証"), "{name}");
    }
    assert_eq!(files_in(mem.path()).len(), 3);
}

#[test]
fn without_a_completion_line_the_description_names_the_file() {
    let mem = tempfile::tempdir().unwrap();
    let mut post = recorded_post_tool_use();
    // The recorded result, its completion line taken out.
    post.tool_response.as_mut().unwrap()["content"][0]["text"] =
        "## Summary\n\nThree routes: /a, /b, /c.".into();
    let path = captured(capture(&Trigger::hook(post), &settings(mem.path()), None).unwrap());
    assert!(
        path.to_string_lossy().ends_with("_map-api-routes.md"),
        "{}",
        path.display()
    );
}

#[test]
fn a_line_with_bytes_that_are_not_utf8_is_read_lossily_not_dropped() {
    let mem = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    let (recorded, session) = recorded_session("1.0.128");
    let transcript = work.path().join("binary.jsonl");
    // A cut multi-byte character in one sub-agent's output.
    let bytes = read(&recorded).replace("P2-BODY", "P2-BODY\u{1}");
    let bytes: Vec<u8> = bytes
        .into_bytes()
        .into_iter()
        .map(|b| if b == 1 { 0xE8 } else { b })
        .collect();
    std::fs::write(&transcript, bytes).unwrap();
    let outputs = capture_until_skipped(
        &Trigger::hook(old_subagent_stop(&transcript, &session)),
        mem.path(),
    );
    assert_eq!(bodies(&outputs), ["ONE-BODY", "P1-BODY", "P2-BODY"]);
    assert!(outputs.iter().any(|o| o.contains("P2-BODY\u{FFFD}")));
}

#[test]
fn a_huge_transcript_without_any_sub_agent_call_costs_its_last_turn() {
    let mem = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    let transcript = work.path().join("huge.jsonl");
    // 1 GiB of history (sparse), then the recorded 2.1.330 session's first
    // prompt and its answer: no Task/Agent call in the turn.
    let (recorded, _) = recorded_session("2.1.330");
    let turn: String = read(&recorded)
        .lines()
        .filter(|l| {
            let e: serde_json::Value = serde_json::from_str(l).unwrap_or_default();
            e["type"] == "user" || e["type"] == "assistant"
        })
        .take(1)
        .map(|l| format!("{l}\n"))
        .collect();
    let file = std::fs::File::create(&transcript).unwrap();
    file.set_len(1024 * 1024 * 1024).unwrap();
    drop(file);
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(&transcript)
        .unwrap();
    std::io::Write::write_all(&mut f, format!("\n{turn}").as_bytes()).unwrap();
    // `mem capture` wired by hand to an event that names no sub-agent: the
    // transcript is searched for the call first.
    let mut h = hook(&transcript);
    h.hook_event_name = Some("SessionEnd".into());
    h.last_assistant_message = Some("🗣️ Researcher: nothing to add".into());
    let mut s = settings(mem.path());
    s.retries = 0;
    let started = std::time::Instant::now();
    let path = captured(capture(&Trigger::hook(h), &s, None).unwrap());
    let took = started.elapsed();
    assert!(read(&path).contains("nothing to add"));
    // Reading the 1 GiB whole takes longer than this even in a release
    // build; the last turn alone is milliseconds, on a loaded machine too.
    assert!(took < Duration::from_secs(3), "took {took:?}");
}

#[test]
fn each_skip_says_what_was_looked_at() {
    let mem = tempfile::tempdir().unwrap();
    let mut s = settings(mem.path());
    s.retries = 0;
    let reason = |h: HookInput| match capture(&Trigger::hook(h), &s, None).unwrap() {
        CaptureOutcome::Skipped { reason } => reason,
        other => panic!("expected a skip, got {other:?}"),
    };
    let mut read_call: HookInput = serde_json::from_str(
        &std::fs::read_to_string(
            fixtures().join("../agents/claude-code-2.1.330/claude-PostToolUse-Read.json"),
        )
        .unwrap(),
    )
    .unwrap();
    read_call.transcript_path = None;
    assert_eq!(
        reason(read_call),
        "PostToolUse of Read, not a sub-agent call"
    );
    let work = tempfile::tempdir().unwrap();
    let empty = work.path().join("agent-x.jsonl");
    std::fs::write(&empty, "").unwrap();
    let mut stop = hook(&empty);
    stop.agent_id = Some("x".into());
    stop.agent_transcript_path = Some(empty.display().to_string());
    // Not a skip: a later hook can still capture it.
    let r = match capture(&Trigger::hook(stop), &s, None).unwrap() {
        CaptureOutcome::Pending { reason, .. } => reason,
        other => panic!("expected a pending capture, got {other:?}"),
    };
    assert!(
        r.starts_with("SubagentStop: the agent transcript")
            && r.contains("agent-x.jsonl holds no final answer after")
            && r.contains("(read once); kept in "),
        "{r}"
    );
    let (transcript, _) = recorded_session("2.0.30");
    let old = old_subagent_stop(&transcript, "not-this-session");
    assert!(reason(old).contains("no earlier output of session not-this-session"));
}
