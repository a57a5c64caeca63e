//! AgentMem across Claude Code's eras: one release of each era of
//! `SubagentStop` payloads (crates/agentmem/src/eras.rs) and the current
//! one, each running a session with one sub-agent and then two in
//! parallel. Every capture is asserted against the output the mock model
//! gave that sub-agent: each once, with its call's description, never a
//! neighbour's. Run with `scripts/e2e`.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests fail loudly")]

use std::path::{Path, PathBuf};

use agentctx_e2e::{
    Block, MockApi, Sandbox, Script, claude_releases, version_tuple, workspace_root,
};
use serde_json::json;

/// One session: a sub-agent, then two in parallel; the three captured once each.
fn era_session(version: &str, bin: &Path) {
    let s = Sandbox::new();
    s.write("README.md", "x\n");
    for agent in ["researcher", "engineer"] {
        s.write(
            &format!(".claude/agents/{agent}.md"),
            &format!("---\nname: {agent}\ndescription: The {agent}.\ntools: Read\n---\nYou are the {agent}.\n"),
        );
    }
    s.commit();
    let run = s.install("claude", &["--agent-version", version]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let no_subagent_start: &[&str] = if version_tuple(version) < (2, 0, 44) {
        &["SubagentStart"]
    } else {
        &[]
    };
    s.record_claude_hooks(no_subagent_start);
    // The sub-agent tool was renamed from Task to Agent in 2.1.63.
    let tool = if version_tuple(version) >= (2, 1, 63) {
        "Agent"
    } else {
        "Task"
    };
    let call = |description: &str, marker: &str, agent: &str| {
        Block::tool(
            tool,
            json!({"description": description, "prompt": format!("{marker} do the work"), "subagent_type": agent}),
        )
    };
    let mock = MockApi::start(
        Script::new()
            .conversation(
                "E2E-MAIN:eras",
                vec![
                    vec![call("Map the routes", "E2E-SUB:one", "researcher")],
                    vec![
                        call("Fix the build", "E2E-SUB:p1", "engineer"),
                        call("Audit the logs", "E2E-SUB:p2", "researcher"),
                    ],
                    vec![Block::text("MAIN-ERAS-DONE")],
                ],
            )
            .conversation(
                "E2E-SUB:one",
                vec![vec![Block::text(
                    "🎯 COMPLETED: [AGENT:researcher] mapped the routes\n\nONE-BODY",
                )]],
            )
            .conversation(
                "E2E-SUB:p1",
                vec![vec![Block::text(
                    "🎯 COMPLETED: [AGENT:engineer] fixed the build\n\nP1-BODY",
                )]],
            )
            .conversation(
                "E2E-SUB:p2",
                vec![vec![Block::text(
                    "🎯 COMPLETED: [AGENT:researcher] audited the logs\n\nP2-BODY",
                )]],
            ),
    );
    let run = s.claude_with(bin, mock.base_url(), &s.root, "E2E-MAIN:eras go", &[]);
    assert_eq!(
        run.code,
        Some(0),
        "{version}: {}\n{}",
        run.stdout,
        run.stderr
    );
    assert_eq!(
        mock.conversation("E2E-SUB:p2").len(),
        1,
        "{version}: the sub-agents ran"
    );
    let texts = s.capture_texts();
    let log = std::fs::read_to_string(s.home.join(".local/state/agentctx/agentmem.log"))
        .unwrap_or_default();
    for (body, description) in [
        ("ONE-BODY", "Map the routes"),
        ("P1-BODY", "Fix the build"),
        ("P2-BODY", "Audit the logs"),
    ] {
        let with: Vec<&String> = texts.iter().filter(|t| t.contains(body)).collect();
        assert_eq!(with.len(), 1, "{version}: {body} once\n{texts:#?}\n{log}");
        assert!(
            with[0].contains(&format!("description: \"{description}\"")),
            "{version}: {}",
            with[0]
        );
    }
    assert_eq!(
        texts.len(),
        3,
        "{version}: nothing else (no internal agent)\n{texts:#?}\n{log}"
    );
    record_transcripts(&s, version);
    // The pinned release's payloads come from the tour (claude_code.rs).
    if std::env::var("AGENTCTX_E2E_CLAUDE_CODE_VERSION").as_deref() != Ok(version) {
        s.record_claude_fixtures_for(version);
    }
}

/// With `AGENTCTX_E2E_RECORD`, the session's transcripts go to
/// `fixtures/transcripts/claude-<version>/` (paths replaced by `{{HOME}}`
/// and `{{CWD}}`).
fn record_transcripts(s: &Sandbox, version: &str) {
    if std::env::var_os("AGENTCTX_E2E_RECORD").is_none() {
        return;
    }
    let out = workspace_root().join(format!("fixtures/transcripts/claude-{version}"));
    let _ = std::fs::remove_dir_all(&out);
    let projects = s.home.join(".claude/projects");
    let mut stack = vec![projects.clone()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            let relative = path.strip_prefix(&projects).unwrap();
            // The project folder's name is the project path, slugged.
            let relative: PathBuf = relative.components().skip(1).collect();
            let target = out.join(&relative);
            std::fs::create_dir_all(target.parent().unwrap()).unwrap();
            let text = std::fs::read_to_string(&path)
                .unwrap()
                .replace(&s.root.display().to_string(), "{{CWD}}")
                .replace(&s.home.display().to_string(), "{{HOME}}");
            std::fs::write(target, text).unwrap();
        }
    }
}

#[test]
#[ignore = "needs the Claude Code releases scripts/e2e installs"]
fn every_era_captures_each_sub_agent_once_with_its_description() {
    for (version, bin) in claude_releases() {
        era_session(&version, &bin);
    }
}
