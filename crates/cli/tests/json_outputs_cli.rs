//! Every `--json` output is the serialization of a type in shared-types,
//! the one whose schema `agentctx schema NAME` prints: the output
//! deserializes into that type and serializes back to the same document.
//! A field added to an output by hand, outside its type, fails here.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests fail loudly")]

mod common;

use common::{TestEnv, copy_dir, fixture_memory, run, workspace_root};
use serde::{Serialize, de::DeserializeOwned};

/// Runs `args` with `--json` and checks the round trip through `T`.
fn round_trips<T: Serialize + DeserializeOwned>(t: &TestEnv, schema: &str, args: &[&str]) {
    assert!(
        agentctx_types::schema_named(schema).is_some(),
        "no schema {schema}"
    );
    let memory = t.dir.path().join("MEMORY");
    let (code, stdout, stderr) = run(t
        .cmd()
        .arg("--json")
        .args(args)
        .env("AGENTMEM_ROOT", &memory)
        .env("AGENTMEM_EVENTS_PATH", t.dir.path().join("events.jsonl")));
    assert!(code == 0 || code == 1, "{args:?}: exit {code}: {stderr}");
    let printed: serde_json::Value = serde_json::from_str(&stdout)
        .unwrap_or_else(|e| panic!("{args:?} printed no JSON ({e}): {stdout}"));
    let typed: T = serde_json::from_value(printed.clone())
        .unwrap_or_else(|e| panic!("{args:?} is not a {schema}: {e}\n{stdout}"));
    assert_eq!(
        serde_json::to_value(&typed).unwrap(),
        printed,
        "{args:?}: the output is not exactly a {schema}"
    );
}

#[test]
fn every_json_output_is_its_schemas_type() {
    use agentctx_types as ty;
    let t = TestEnv::new();
    copy_dir(&workspace_root().join("fixtures/rules/yaml"), &t.project);
    fixture_memory(&t);
    t.write("project/AGENTS.md", "# Project\n");
    t.write("project/src/lib.rs", "fn main() {}\n");
    round_trips::<ty::RootInfo>(&t, "root-info", &["root"]);
    round_trips::<ty::InitialBundle>(&t, "initial-bundle", &["agents", "init"]);
    round_trips::<ty::ResolvedAgents>(&t, "resolved-agents", &["agents", "resolve", "src/lib.rs"]);
    round_trips::<ty::ResumeReport>(
        &t,
        "resume-report",
        &["session", "resume", "--session", "../state.json"],
    );
    round_trips::<ty::FileListReport>(&t, "file-list-report", &["files", "--no-timestamp"]);
    round_trips::<ty::ComposedContext>(&t, "composed-context", &["context"]);
    round_trips::<ty::RulesReport>(&t, "rules-report", &["rules", "show"]);
    round_trips::<Vec<ty::RuleDecision>>(
        &t,
        "rule-decisions",
        &["rules", "check-tool", "Bash", "Read"],
    );
    round_trips::<Vec<ty::RuleDecision>>(
        &t,
        "rule-decisions",
        &["rules", "check-file", "src/lib.rs", ".env"],
    );
    round_trips::<ty::LintReport>(&t, "lint-report", &["rules", "lint"]);
    round_trips::<ty::PromptText>(&t, "prompt-text", &["prompt", "rules"]);
    round_trips::<ty::PromptText>(&t, "prompt-text", &["prompt", "agents-guidance"]);
    round_trips::<ty::Config>(&t, "config", &["config"]);
    round_trips::<Vec<ty::ConfigEntry>>(&t, "config-entries", &["config", "--origins"]);
    round_trips::<Vec<ty::CaptureRecord>>(&t, "capture-records", &["mem", "list"]);
    round_trips::<Vec<ty::SearchHit>>(&t, "search-hits", &["mem", "search", "auth"]);
    round_trips::<ty::CaptureShown>(&t, "capture-shown", &["mem", "show", "2026-01-25-091200"]);
    round_trips::<ty::MemoryContext>(&t, "memory-context", &["mem", "context", "auth"]);
    round_trips::<ty::MemoryStats>(&t, "memory-stats", &["mem", "stats"]);
    round_trips::<ty::MemoryIndex>(&t, "memory-index", &["mem", "index"]);
    round_trips::<ty::ProjectIdentity>(&t, "project-identity", &["mem", "identity"]);
    // A part `trim` kept: its id from the reminder.
    let mut child = t
        .cmd()
        .args(["--json", "trim", "--max-bytes", "4"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::io::Write::write_all(&mut child.stdin.take().unwrap(), b"abc\ndef\n").unwrap();
    let report: serde_json::Value =
        serde_json::from_slice(&child.wait_with_output().unwrap().stdout).unwrap();
    let id = report["id"].as_str().unwrap().to_owned();
    round_trips::<ty::OutputPage>(&t, "output-page", &["output", "get", &id]);
}

#[test]
fn trim_json_is_a_trim_report() {
    let t = TestEnv::new();
    let mut child = t
        .cmd()
        .args(["--json", "trim", "--max-bytes", "10"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::io::Write::write_all(
        &mut child.stdin.take().unwrap(),
        b"0123456789\nabcdefghij\n",
    )
    .unwrap();
    let output = child.wait_with_output().unwrap();
    let printed: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let typed: agentctx_types::TrimReport = serde_json::from_value(printed.clone()).unwrap();
    assert_eq!(serde_json::to_value(&typed).unwrap(), printed);
}

#[test]
fn capture_events_are_capture_events() {
    // The events file the capture hook appends to, after a capture from a
    // Codex notify payload of the shape mem_cli.rs uses.
    let t = TestEnv::new();
    let memory = fixture_memory(&t);
    let events = t.dir.path().join("events.jsonl");
    let payload = r#"{"type":"agent-turn-complete","thread-id":"t-1","turn-id":"u-1","cwd":"/tmp","input-messages":["hi"],"last-assistant-message":"done"}"#;
    let (code, _, stderr) = run(t
        .cmd()
        .args(["mem", "capture", payload])
        .env("AGENTMEM_ROOT", &memory)
        .env("AGENTMEM_EVENTS_PATH", &events));
    assert_eq!(code, 0, "{stderr}");
    let text = std::fs::read_to_string(&events).unwrap();
    let line = text.lines().next().expect("one event");
    let printed: serde_json::Value = serde_json::from_str(line).unwrap();
    let typed: agentctx_types::CaptureEvent = serde_json::from_value(printed.clone()).unwrap();
    assert_eq!(serde_json::to_value(&typed).unwrap(), printed);
}
