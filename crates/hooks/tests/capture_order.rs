//! Capture through the hook, whatever the order of its events (issue 35):
//! Claude Code 2.1.40's `SubagentStop` before its agent's transcript is
//! written is completed by the `PostToolUse` of its `Task`, or by a later
//! event of the session, the main agent's `Stop` included when it captures
//! nothing itself; the notes (and agentmem.log) say which path captured.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests fail loudly")]

mod common;

use agentctx_hooks::handle_event;
use agentctx_session::Host;
use agentctx_types::Agent;
use common::Project;
use serde_json::Value;

/// A payload Claude Code 2.1.40 sent (recorded by the end-to-end suite),
/// pointed at `project`: the files it names do not exist.
fn recorded_2_1_40(project: &Project, name: &str) -> Value {
    let path = format!(
        "{}/../../fixtures/agents/claude-code-2.1.40/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(&path)
        .unwrap()
        .replace("{{HOME}}", project.home.to_str().unwrap())
        .replace("{{PROJECT_SLUG}}", "p")
        .replace("{{CWD}}", project.root.to_str().unwrap());
    serde_json::from_str(&text).unwrap()
}

/// The hook's notes for `payload` (Claude Code), with a short wait.
fn notes(project: &Project, payload: &Value) -> Vec<String> {
    let env = project.env();
    let mut config = project.config.clone();
    config.agentmem.retry_delay_ms = 20;
    let mut host = Host::new(&config, &env, Some(&project.root));
    host.program = None;
    handle_event(
        payload.to_string().as_bytes(),
        Some(Agent::Claude),
        None,
        &host,
    )
    .notes
}

fn capture_notes(notes: &[String]) -> Vec<&str> {
    notes
        .iter()
        .filter_map(|n| n.strip_prefix("capture: "))
        .collect()
}

fn captures(project: &Project) -> Vec<String> {
    let mut found = Vec::new();
    let mut stack = vec![project.home.join(".agent-kit/MEMORY")];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "md") {
                found.push(std::fs::read_to_string(&path).unwrap());
            }
        }
    }
    found
}

#[test]
fn a_subagent_stop_before_its_transcript_is_captured_by_the_post_tool_use_of_its_task() {
    let p = Project::new("");
    let stop = recorded_2_1_40(&p, "claude-SubagentStop-researcher.json");
    let post = recorded_2_1_40(&p, "claude-PostToolUse-Task.json");
    let stopped = notes(&p, &stop);
    let stopped = capture_notes(&stopped);
    assert_eq!(stopped.len(), 1, "{stopped:?}");
    assert!(
        stopped[0]
            .starts_with("pending agent:ab60d63 (claude-hook): SubagentStop: the agent transcript"),
        "{stopped:?}"
    );
    assert!(captures(&p).is_empty());
    let posted = notes(&p, &post);
    let posted = capture_notes(&posted);
    assert_eq!(posted.len(), 1, "{posted:?}");
    assert!(
        posted[0].ends_with(
            "(claude-hook; from the parent's tool result; completes what SubagentStop left pending)"
        ),
        "{posted:?}"
    );
    let texts = captures(&p);
    assert_eq!(texts.len(), 1);
    assert!(texts[0].contains("ONE-BODY"));
    // The log says it too.
    let log = std::fs::read_to_string(p.home.join(".local/state/agentctx/agentmem.log")).unwrap();
    assert!(log.contains("pending agent:ab60d63"), "{log}");
    assert!(log.contains("from the parent's tool result"), "{log}");
}

/// A background sub-agent has no `PostToolUse` after its stop: the main
/// agent's `Stop`, which captures nothing itself by default, completes
/// what its `SubagentStop` left pending once the transcript is written.
#[test]
fn the_main_agent_s_stop_completes_a_pending_capture_with_capture_on_stop_off() {
    let p = Project::new("");
    let stop = recorded_2_1_40(&p, "claude-SubagentStop-engineer.json");
    let stopped = notes(&p, &stop);
    assert!(
        capture_notes(&stopped)
            .first()
            .is_some_and(|n| n.starts_with("pending agent:ac79c19 ")),
        "{stopped:?}"
    );
    // Claude Code flushes the transcript a moment later (recorded by the
    // era suite).
    let transcript = std::path::PathBuf::from(stop["agent_transcript_path"].as_str().unwrap());
    std::fs::create_dir_all(transcript.parent().unwrap()).unwrap();
    std::fs::copy(
        format!(
            "{}/../../fixtures/transcripts/claude-2.1.40/c6f4d71b-7fb0-4ff4-b7c4-da36059e9ae4/subagents/agent-a6e87a6.jsonl",
            env!("CARGO_MANIFEST_DIR")
        ),
        &transcript,
    )
    .unwrap();
    assert!(!p.config.agentmem.capture_on_stop);
    let main_stop = recorded_2_1_40(&p, "claude-Stop.json");
    let stopped = notes(&p, &main_stop);
    assert!(
        stopped
            .iter()
            .any(|n| n == "Stop: capture is off (agentmem.capture_on_stop: false)"),
        "{stopped:?}"
    );
    let captured = capture_notes(&stopped);
    assert_eq!(captured.len(), 1, "{stopped:?}");
    assert!(
        captured[0].ends_with(
            "(claude-hook; from the agent transcript; completes what SubagentStop left pending)"
        ),
        "{captured:?}"
    );
    let texts = captures(&p);
    assert_eq!(texts.len(), 1);
    assert!(texts[0].contains("P1-BODY"));
    // Nothing is left: the next Stop captures nothing and says nothing of it.
    assert!(capture_notes(&notes(&p, &main_stop)).is_empty());
}
