//! A capture reads at most the last 16 MiB of a transcript: an old-era
//! `SubagentStop` (no agent fields) on a long session costs the window,
//! not the file. Built from the recorded Claude Code 1.0.128 session:
//! its first sub-agent's sidechain, then copies of its own main-chain
//! entries (a tool call and its result) as a long turn would add them.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests fail loudly")]

use std::io::Write as _;
use std::path::Path;
use std::time::Duration;

use agentctx_agentmem::{CaptureOutcome, CaptureSettings, Trigger, capture};
use agentctx_types::HookInput;

const SESSION: &str = "d19752d3-5799-4d25-9e00-3f276c15afb2";

fn recorded_lines() -> Vec<String> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures/transcripts/claude-1.0.128")
        .join(format!("{SESSION}.jsonl"));
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect()
}

/// The session as its first sub-agent stops (prompt, call, sidechain),
/// followed by `padding` bytes of recorded main-chain entries.
fn transcript(dir: &Path, padding: usize) -> std::path::PathBuf {
    let lines = recorded_lines();
    let path = dir.join(format!("{SESSION}.jsonl"));
    let mut file = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
    for line in &lines[..5] {
        writeln!(file, "{line}").unwrap();
    }
    let (result, call) = (&lines[5], &lines[6]);
    let mut written = 0;
    while written < padding {
        writeln!(file, "{call}\n{result}").unwrap();
        written += call.len() + result.len() + 2;
    }
    file.flush().unwrap();
    path
}

fn stop(transcript: &Path) -> Trigger {
    Trigger::hook(HookInput {
        session_id: Some(SESSION.into()),
        transcript_path: Some(transcript.display().to_string()),
        cwd: Some("/work/app".into()),
        hook_event_name: Some("SubagentStop".into()),
        ..HookInput::default()
    })
}

fn settings(root: &Path) -> CaptureSettings {
    CaptureSettings {
        root: root.to_path_buf(),
        codex_sessions: root.join("none"),
        retries: 0,
        retry_delay: Duration::ZERO,
        redact: true,
        now: "2026-11-25T09:12:00+00:00[UTC]".parse().unwrap(),
        identity: Default::default(),
    }
}

#[test]
fn a_sub_agent_inside_the_window_is_captured() {
    let dir = tempfile::tempdir().unwrap();
    let path = transcript(dir.path(), 4 * 1024 * 1024);
    let outcome = capture(&stop(&path), &settings(&dir.path().join("mem")), None).unwrap();
    assert!(
        matches!(outcome, CaptureOutcome::Captured { .. }),
        "{outcome:?}"
    );
}

#[test]
fn what_lies_before_the_last_16_mib_is_not_read() {
    let dir = tempfile::tempdir().unwrap();
    let path = transcript(dir.path(), 17 * 1024 * 1024);
    let outcome = capture(&stop(&path), &settings(&dir.path().join("mem")), None).unwrap();
    // The sub-agent's entry lies before the window: not found, so the
    // bytes before it were not read. (How long a read takes is measured,
    // not asserted: a loaded 2-core machine ran this debug build past any
    // bound that would also catch a whole read; the release build's figure
    // on 1 GiB is in docs/BENCHMARKS.md.)
    assert!(
        matches!(outcome, CaptureOutcome::Skipped { .. }),
        "{outcome:?}"
    );
}
