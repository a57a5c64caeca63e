//! A capture is never lost to the order or timing of hooks (issue 35):
//! Claude Code 2.0.42 – 2.1.46 write a sub-agent's transcript on a 100 ms
//! timer, so its `SubagentStop` can come before the file exists (seen with
//! 2.1.40 and three sub-agents ending at once). `SubagentStop` waits a
//! bounded time, else leaves the capture pending for the `PostToolUse` of
//! its `Task` or the next capture; the log says which path captured it.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests fail loudly")]

use std::path::{Path, PathBuf};
use std::time::Duration;

use agentctx_agentmem::{
    CaptureError, CaptureOutcome, CaptureSettings, OutputSource, Trigger, capture,
    capture_with_config, complete_pending,
};
use agentctx_types::{AgentMemConfig, HookInput};

fn fixtures() -> PathBuf {
    std::fs::canonicalize(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures")).unwrap()
}

/// The default wait: 2 re-reads, 200 ms apart.
fn settings(root: &Path) -> CaptureSettings {
    CaptureSettings {
        root: root.to_path_buf(),
        codex_sessions: root.join("no-codex"),
        retries: 2,
        retry_delay: Duration::from_millis(200),
        redact: true,
        now: "2026-01-25T09:12:00+09:00[Asia/Tokyo]".parse().unwrap(),
        identity: Default::default(),
    }
}

/// A payload Claude Code 2.1.40 sent (the end-to-end suite recorded it),
/// its `{{HOME}}` at `home`: the files it names do not exist there.
fn recorded_2_1_40(name: &str, home: &Path) -> HookInput {
    let text = std::fs::read_to_string(fixtures().join("agents/claude-code-2.1.40").join(name))
        .unwrap()
        .replace("{{HOME}}", home.to_str().unwrap())
        .replace("{{PROJECT_SLUG}}", "p")
        .replace("{{CWD}}", home.to_str().unwrap());
    serde_json::from_str(&text).unwrap()
}

/// The researcher's `SubagentStop` (agent `ab60d63`) and the `PostToolUse`
/// of its `Task`, whose result names the same agent.
fn stop_and_post(home: &Path) -> (HookInput, HookInput) {
    (
        recorded_2_1_40("claude-SubagentStop-researcher.json", home),
        recorded_2_1_40("claude-PostToolUse-Task.json", home),
    )
}

/// The transcript 2.1.40 wrote for the sub-agent that answered ONE-BODY
/// (recorded by the era suite).
fn recorded_agent_transcript() -> String {
    std::fs::read_to_string(fixtures().join(
        "transcripts/claude-2.1.40/c6f4d71b-7fb0-4ff4-b7c4-da36059e9ae4/subagents/agent-a80236b.jsonl",
    ))
    .unwrap()
}

/// Writes `text` at `path` after `delay`, from another thread.
fn write_later(path: &Path, text: String, delay: Duration) -> std::thread::JoinHandle<()> {
    let path = path.to_path_buf();
    std::thread::spawn(move || {
        std::thread::sleep(delay);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        // Complete, then renamed into place, as a reader may look at any time.
        let temp = path.with_extension("tmp");
        std::fs::write(&temp, text).unwrap();
        std::fs::rename(&temp, &path).unwrap();
    })
}

fn agent_transcript(stop: &HookInput) -> PathBuf {
    PathBuf::from(stop.agent_transcript_path.clone().unwrap())
}

fn captures(root: &Path) -> Vec<String> {
    let mut found = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() && !path.ends_with(".agentmem") {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "md") {
                found.push(std::fs::read_to_string(&path).unwrap());
            }
        }
    }
    found
}

fn pending_records(root: &Path) -> usize {
    std::fs::read_dir(root.join(".agentmem/pending"))
        .map(|d| d.flatten().count())
        .unwrap_or(0)
}

#[test]
fn an_agent_transcript_created_200_ms_after_subagent_stop_is_captured_from_it() {
    let mem = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let (stop, _) = stop_and_post(home.path());
    let writer = write_later(
        &agent_transcript(&stop),
        recorded_agent_transcript(),
        Duration::from_millis(200),
    );
    let outcome = capture(&Trigger::hook(stop), &settings(mem.path()), None).unwrap();
    writer.join().unwrap();
    let CaptureOutcome::Captured {
        path, provenance, ..
    } = outcome
    else {
        panic!("expected a capture, got {outcome:?}");
    };
    assert_eq!(provenance.source, OutputSource::AgentTranscript);
    assert!(
        provenance.waited >= Duration::from_millis(190),
        "{provenance:?}"
    );
    assert_eq!(provenance.completes, None);
    assert!(std::fs::read_to_string(&path).unwrap().contains("ONE-BODY"));
    assert_eq!(pending_records(mem.path()), 0);
}

#[test]
fn an_agent_transcript_never_created_is_captured_from_the_post_tool_use() {
    let mem = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let (stop, post) = stop_and_post(home.path());
    let mut s = settings(mem.path());
    s.retry_delay = Duration::from_millis(20);
    let started = std::time::Instant::now();
    let outcome = capture(&Trigger::hook(stop.clone()), &s, None).unwrap();
    // The wait is bounded: retries x retry_delay (40 ms), and the reads
    // (a loaded machine's debug build).
    assert!(started.elapsed() < Duration::from_secs(3));
    let CaptureOutcome::Pending { key, reason } = outcome else {
        panic!("expected a pending capture, got {outcome:?}");
    };
    assert_eq!(key, "agent:ab60d63");
    assert!(
        reason.contains("agent-ab60d63.jsonl does not exist after")
            && reason.contains("(read 3 times)"),
        "{reason}"
    );
    assert_eq!(pending_records(mem.path()), 1);
    assert!(captures(mem.path()).is_empty());
    // The PostToolUse of its Task carries the result: captured, and the
    // pending record goes.
    let outcome = capture(&Trigger::hook(post), &s, None).unwrap();
    let CaptureOutcome::Captured {
        key, provenance, ..
    } = outcome
    else {
        panic!("expected a capture, got {outcome:?}");
    };
    assert_eq!(key, "agent:ab60d63");
    assert_eq!(provenance.source, OutputSource::ToolResult);
    assert_eq!(provenance.completes.as_deref(), Some("SubagentStop"));
    assert_eq!(pending_records(mem.path()), 0);
    let texts = captures(mem.path());
    assert_eq!(texts.len(), 1);
    assert!(texts[0].contains("ONE-BODY") && texts[0].contains("Map the routes"));
    // Nothing is left for a later capture to find.
    assert!(complete_pending(&s, None).is_empty());
}

#[test]
fn no_double_capture_when_the_agent_transcript_and_the_tool_result_both_succeed() {
    // SubagentStop reads the late file; the PostToolUse is a duplicate.
    let mem = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let (stop, post) = stop_and_post(home.path());
    let s = settings(mem.path());
    let writer = write_later(
        &agent_transcript(&stop),
        recorded_agent_transcript(),
        Duration::from_millis(200),
    );
    let first = capture(&Trigger::hook(stop.clone()), &s, None).unwrap();
    writer.join().unwrap();
    assert!(
        matches!(first, CaptureOutcome::Captured { .. }),
        "{first:?}"
    );
    let second = capture(&Trigger::hook(post.clone()), &s, None).unwrap();
    assert!(
        matches!(second, CaptureOutcome::Duplicate { .. }),
        "{second:?}"
    );
    assert_eq!(captures(mem.path()).len(), 1);

    // SubagentStop gives up; the file appears; the next capture takes it
    // from the agent transcript, and the PostToolUse then is a duplicate.
    let mem = tempfile::tempdir().unwrap();
    let mut s = settings(mem.path());
    s.retries = 0;
    let home = tempfile::tempdir().unwrap();
    let (stop, post) = stop_and_post(home.path());
    let pending = capture(&Trigger::hook(stop.clone()), &s, None).unwrap();
    assert!(
        matches!(pending, CaptureOutcome::Pending { .. }),
        "{pending:?}"
    );
    write_later(
        &agent_transcript(&stop),
        recorded_agent_transcript(),
        Duration::ZERO,
    )
    .join()
    .unwrap();
    let swept = complete_pending(&s, None);
    assert_eq!(swept.len(), 1, "{swept:?}");
    let Ok(CaptureOutcome::Captured { provenance, .. }) = &swept[0].outcome else {
        panic!("{swept:?}");
    };
    assert_eq!(provenance.source, OutputSource::AgentTranscript);
    assert_eq!(provenance.completes.as_deref(), Some("SubagentStop"));
    assert!(complete_pending(&s, None).is_empty());
    for again in [post.clone(), stop.clone(), post] {
        let outcome = capture(&Trigger::hook(again), &s, None).unwrap();
        assert!(
            matches!(outcome, CaptureOutcome::Duplicate { .. }),
            "{outcome:?}"
        );
    }
    assert_eq!(captures(mem.path()).len(), 1);
    assert_eq!(pending_records(mem.path()), 0);

    // A SubagentStop after the PostToolUse captured the run does not wait
    // for a transcript at all.
    let mem = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let (stop, post) = stop_and_post(home.path());
    let mut s = settings(mem.path());
    s.retry_delay = Duration::from_secs(2);
    assert!(matches!(
        capture(&Trigger::hook(post), &s, None).unwrap(),
        CaptureOutcome::Captured { .. }
    ));
    let started = std::time::Instant::now();
    let outcome = capture(&Trigger::hook(stop), &s, None).unwrap();
    assert!(
        matches!(outcome, CaptureOutcome::Duplicate { .. }),
        "{outcome:?}"
    );
    assert!(started.elapsed() < Duration::from_secs(3));
    assert_eq!(pending_records(mem.path()), 0);
}

/// The configured capture as a hook runs it: its log line.
fn log_line(trigger: HookInput, config: &AgentMemConfig) -> String {
    capture_with_config(&Trigger::hook(trigger), config, None, None, None).line
}

#[test]
fn the_log_names_the_path_that_captured_each_output() {
    let mem = tempfile::tempdir().unwrap();
    let events = mem.path().join("events.jsonl");
    let config = AgentMemConfig {
        root: Some(mem.path().to_path_buf()),
        events_path: Some(events.clone()),
        retries: 1,
        retry_delay_ms: 20,
        ..AgentMemConfig::default()
    };
    // 2.1.330: the payload carries the message.
    let payload: HookInput = serde_json::from_str(
        &std::fs::read_to_string(
            fixtures().join("agents/claude-code-2.1.330/claude-SubagentStop-researcher.json"),
        )
        .unwrap(),
    )
    .unwrap();
    let line = log_line(payload, &config);
    assert!(
        line.starts_with("captured ") && line.ends_with(" (claude-hook; from the payload)"),
        "{line}"
    );
    // 2.1.40, the agent transcript there at once.
    let home = tempfile::tempdir().unwrap();
    let (mut stop, _) = stop_and_post(home.path());
    stop.agent_id = Some("a80236b".into());
    stop.agent_transcript_path = Some(
        fixtures()
            .join("transcripts/claude-2.1.40/c6f4d71b-7fb0-4ff4-b7c4-da36059e9ae4/subagents/agent-a80236b.jsonl")
            .display()
            .to_string(),
    );
    let line = log_line(stop, &config);
    assert!(
        line.ends_with(" (claude-hook; from the agent transcript)"),
        "{line}"
    );
    // 2.1.40, never written: pending, then the PostToolUse of its Task.
    let (stop, post) = stop_and_post(home.path());
    let line = log_line(stop.clone(), &config);
    assert!(
        line.starts_with(
            "pending agent:ab60d63 (claude-hook): SubagentStop: the agent transcript "
        ) && line.contains("does not exist after")
            && line.contains("(read 2 times); kept in ")
            && line.ends_with(" for the PostToolUse of its Task/Agent call or the next capture"),
        "{line}"
    );
    let line = log_line(post, &config);
    assert!(
        line.ends_with(
            " (claude-hook; from the parent's tool result; completes what SubagentStop left pending)"
        ),
        "{line}"
    );
    // Another run left pending, written later: the next hook's line says
    // it captured it too, from where.
    let mut late = stop;
    late.agent_id = Some("late1".into());
    late.agent_transcript_path = Some(
        home.path()
            .join("subagents/agent-late1.jsonl")
            .display()
            .to_string(),
    );
    assert!(log_line(late.clone(), &config).starts_with("pending agent:late1 "));
    write_later(
        &agent_transcript(&late),
        recorded_agent_transcript().replace("ONE-BODY", "LATE-BODY"),
        Duration::ZERO,
    )
    .join()
    .unwrap();
    let mut read_call = recorded_2_1_40("claude-PostToolUse-Task.json", home.path());
    read_call.tool_name = Some("Read".into());
    let line = log_line(read_call, &config);
    assert!(
        line.starts_with(
            "skipped (claude-hook): PostToolUse of Read, not a sub-agent call; also captured "
        ) && line.ends_with(
            " (claude-hook; from the agent transcript; completes what SubagentStop left pending)"
        ),
        "{line}"
    );
    assert!(captures(mem.path()).iter().any(|c| c.contains("LATE-BODY")));
    // The events file: one line per attempt, the pending one as such.
    let outcomes: Vec<String> = std::fs::read_to_string(&events)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()["outcome"].to_string())
        .collect();
    assert_eq!(
        outcomes,
        [
            "\"captured\"",
            "\"captured\"",
            "\"pending\"",
            "\"captured\"",
            "\"pending\"",
            "\"skipped\"",
            "\"captured\""
        ]
    );
}

#[test]
fn a_pending_capture_whose_output_never_appears_is_reported_lost_after_an_hour() {
    let mem = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let mut s = settings(mem.path());
    s.retries = 0;
    let (stop, _) = stop_and_post(home.path());
    let pending = capture(&Trigger::hook(stop), &s, None).unwrap();
    assert!(
        matches!(pending, CaptureOutcome::Pending { .. }),
        "{pending:?}"
    );
    // Half an hour on: still waiting, nothing to report.
    s.now = "2026-01-25T09:42:00+09:00[Asia/Tokyo]".parse().unwrap();
    assert!(complete_pending(&s, None).is_empty());
    assert_eq!(pending_records(mem.path()), 1);
    // Two hours on: reported lost, once.
    s.now = "2026-01-25T11:12:00+09:00[Asia/Tokyo]".parse().unwrap();
    let swept = complete_pending(&s, None);
    assert_eq!(swept.len(), 1);
    let Err(CaptureError::Lost { key, reason }) = &swept[0].outcome else {
        panic!("{swept:?}");
    };
    assert_eq!(key, "agent:ab60d63");
    assert!(
        reason.starts_with("left pending by SubagentStop at 2026-01-25 09:12:00 JST, and still not readable: SubagentStop: the agent transcript"),
        "{reason}"
    );
    assert_eq!(pending_records(mem.path()), 0);
    assert!(complete_pending(&s, None).is_empty());
}

/// Copilot CLI's `SubagentStop` names no agent transcript and carries the
/// answer: taken at once, never after a search of the session's events
/// and the retries (400 ms on every sub-agent before).
#[test]
fn a_subagent_stop_carrying_the_answer_is_captured_from_the_payload_without_waiting() {
    let mem = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let text =
        std::fs::read_to_string(fixtures().join("agents/copilot-cli-1.0.102/SubagentStop.json"))
            .unwrap()
            .replace("{{HOME}}", home.path().to_str().unwrap())
            .replace("{{CWD}}", home.path().to_str().unwrap());
    let recorded: serde_json::Value = serde_json::from_str(&text).unwrap();
    let mut stop: HookInput = serde_json::from_value(recorded["stdin"].clone()).unwrap();
    stop.other.insert(
        agentctx_agentmem::AGENT_KEY.to_owned(),
        serde_json::Value::String("copilot".into()),
    );
    // The session's events file, as Copilot CLI writes it, is there.
    let events = PathBuf::from(stop.transcript_path.clone().unwrap());
    std::fs::create_dir_all(events.parent().unwrap()).unwrap();
    std::fs::write(&events, "{\"type\":\"session.start\",\"data\":{}}\n").unwrap();
    // A wait would take 2 x 5 s: far from what a loaded machine adds.
    let settings = CaptureSettings {
        retry_delay: Duration::from_secs(5),
        ..settings(mem.path())
    };
    let started = std::time::Instant::now();
    let outcome = capture(&Trigger::hook(stop), &settings, None).unwrap();
    let took = started.elapsed();
    let CaptureOutcome::Captured {
        path, provenance, ..
    } = outcome
    else {
        panic!("expected a capture, got {outcome:?}");
    };
    assert_eq!(provenance.source, OutputSource::Payload);
    assert!(took < Duration::from_secs(4), "took {took:?}");
    assert!(
        std::fs::read_to_string(path)
            .unwrap()
            .contains("SUB-AGENT-ANSWER-copilot")
    );
}

/// Codex's `SubagentStop` without its message, before the sub-agent's
/// rollout exists: not a failure; its `notify` (same key) captures it.
#[test]
fn a_codex_subagent_stop_before_its_rollout_exists_is_left_to_its_notify() {
    let mem = tempfile::tempdir().unwrap();
    let s = settings(mem.path());
    let mut stop: HookInput = serde_json::from_str(
        &std::fs::read_to_string(fixtures().join("agents/codex-0.169.0/hook-subagent-stop.json"))
            .unwrap()
            .replace("{{SCRATCH}}", mem.path().join("scratch").to_str().unwrap()),
    )
    .unwrap();
    stop.last_assistant_message = None;
    let outcome = capture(&Trigger::hook(stop.clone()), &s, None).unwrap();
    let CaptureOutcome::Skipped { reason } = outcome else {
        panic!("expected a skip, got {outcome:?}");
    };
    assert!(
        reason.contains("or no such file yet (its notify, which names the same run, captures it)"),
        "{reason}"
    );
    // The notify of that sub-agent's turn (recorded, pointed at it).
    let mut notify: agentctx_types::CodexNotify = serde_json::from_str(
        &std::fs::read_to_string(fixtures().join("agents/codex-0.169.0/notify-subagent-turn.json"))
            .unwrap(),
    )
    .unwrap();
    notify.thread_id = stop.agent_id.clone();
    let outcome = capture(&Trigger::CodexNotify(notify), &s, None).unwrap();
    let CaptureOutcome::Captured {
        key, provenance, ..
    } = outcome
    else {
        panic!("expected a capture, got {outcome:?}");
    };
    assert_eq!(key, format!("agent:{}", stop.agent_id.unwrap()));
    assert_eq!(provenance.source, OutputSource::Payload);
}
