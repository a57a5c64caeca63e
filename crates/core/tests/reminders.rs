//! The rendered reminders, exactly. Review snapshot changes before accepting them.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests fail loudly")]

use std::path::PathBuf;

use agentctx_core::{ResumeDiff, render_resolve_paths, render_resume_diff, trim};
use agentctx_types::{ResolvedAgentFile, ResolvedAgents};

fn file(path: &str, mtime_ms: u64) -> ResolvedAgentFile {
    ResolvedAgentFile {
        path: PathBuf::from(path),
        mtime_ms,
        size_bytes: 42,
        changed: false,
        unreadable: None,
    }
}

#[test]
fn agents_resolve_paths_reminder() {
    let found = ResolvedAgents {
        files: vec![
            file("/repo/feature/AGENTS.md", 1_738_970_000_000),
            file("/repo/feature/api/AGENTS.md", 1_738_970_123_456),
        ],
    };
    insta::assert_snapshot!(render_resolve_paths(&found));
}

#[test]
fn an_agents_md_that_cannot_be_read_is_named_so() {
    let mut locked = file("/repo/locked/AGENTS.md", 7);
    locked.unreadable = Some("Permission denied".into());
    let found = ResolvedAgents {
        files: vec![file("/repo/AGENTS.md", 5), locked],
    };
    insta::assert_snapshot!(render_resolve_paths(&found));
}

#[test]
fn session_resume_diff_reminder_with_every_line() {
    let diff = ResumeDiff {
        cwd: Some(("/repo".into(), "/repo/packages/foo".into())),
        root: Some(("/old".into(), "/repo".into())),
        markers: Some((vec![".git".into()], vec![".codelia".into(), ".git".into()])),
        recheck: vec![
            file("/repo/AGENTS.md", 1_738_970_000_000),
            file("/repo/packages/foo/AGENTS.md", 1_738_970_000_001),
        ],
    };
    insta::assert_snapshot!(render_resume_diff(&diff));
}

#[test]
fn session_resume_diff_with_only_files_and_none_when_equal() {
    let diff = ResumeDiff {
        recheck: vec![file("/repo/AGENTS.md", 5)],
        ..ResumeDiff::default()
    };
    insta::assert_snapshot!(render_resume_diff(&diff));
    assert_eq!(render_resume_diff(&ResumeDiff::default()), "");
}

#[test]
fn tool_output_trimmed_reminder() {
    let output = "line 1\nline 2\nline 3\nline 4\n<system-reminder type=\"agents.resolve.paths\">\nAdditional AGENTS.md may apply for this path:\n- /repo/x/AGENTS.md (mtime: 1)\nRead and apply these files before editing files in this scope.\n</system-reminder>\n";
    insta::assert_snapshot!(trim(output, 14).text);
}
