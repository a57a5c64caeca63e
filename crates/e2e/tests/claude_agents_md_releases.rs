//! AGENTS.md across Claude Code releases: every release the suite has
//! (1.0.x, 2.0.x and 2.1.x before the built-in loader, the last release
//! without it, the first with it, the pinned one), in both AGENTS.md modes
//! (the default, and `--replace-agents-md-loader`). In each, every body
//! reaches the model exactly once: the root chain at start (at the root
//! and in a subdirectory), a nested file after a Read (its body from
//! Claude Code's loader, or its path from agentctx, never both, never
//! neither), a changed root file on resume, the chain after `/compact`,
//! and the root body in a sub-agent's first request where the release has
//! `SubagentStart` (2.0.44 and later). Run with `scripts/e2e`.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests fail loudly")]

use std::path::Path;

use agentctx_e2e::{
    Block, MockApi, Sandbox, Script, claude_releases, text_of_request, version_tuple,
};
use serde_json::{Value, json};

fn count(haystack: &str, needle: &str) -> usize {
    haystack.matches(needle).count()
}

/// The project: a root, a package and a nested AGENTS.md, a sub-agent;
/// agentctx installed for the user (project settings are read from a
/// subdirectory only from 2.1.211 on: docs/integrations/claude-code.md).
fn project(version: &str, replace_loader: bool) -> Sandbox {
    let s = Sandbox::new();
    s.write("AGENTS.md", "ROOT-AGENTS-BODY v1\n");
    s.write("packages/api/AGENTS.md", "API-AGENTS-BODY\n");
    s.write("packages/api/src/server.ts", "export const server = 1;\n");
    s.write(
        ".claude/agents/researcher.md",
        "---\nname: researcher\ndescription: Researches.\ntools: Read\n---\nYou research.\n",
    );
    s.commit();
    let mut args = vec!["--user", "--agent-version", version];
    if replace_loader {
        args.push("--replace-agents-md-loader");
    }
    let run = s.install("claude", &args);
    assert_eq!(run.code, Some(0), "{version}: {}", run.stderr);
    s
}

/// The main agent's model requests after request `from` (the main agent's
/// requests carry tools; internal agents' and side requests do not).
fn main_requests_since(mock: &MockApi, from: usize) -> Vec<Value> {
    mock.requests()
        .into_iter()
        .skip(from)
        .filter(|r| r.path.starts_with("/v1/messages") && !r.path.contains("count_tokens"))
        .map(|r| r.body)
        .filter(|b| b["tools"].is_array())
        .collect()
}

fn check(version: &str, bin: &Path, replace_loader: bool) {
    let mode = if replace_loader {
        "loader replaced"
    } else {
        "default"
    };
    let at = format!("{version} ({mode})");
    let s = project(version, replace_loader);
    let root = s.root.display().to_string();
    let tool = if version_tuple(version) >= (2, 1, 63) {
        "Agent"
    } else {
        "Task"
    };
    let mock = MockApi::start(
        Script::new()
            .conversation(
                "E2E-MAIN:matrix",
                vec![
                    vec![Block::tool(
                        "Read",
                        json!({"file_path": format!("{root}/packages/api/src/server.ts")}),
                    )],
                    vec![Block::tool(
                        tool,
                        json!({"description": "Look around", "prompt": "E2E-SUB:matrix look", "subagent_type": "researcher"}),
                    )],
                    vec![Block::text("MATRIX-DONE")],
                ],
            )
            .conversation(
                "E2E-SUB:matrix",
                vec![vec![Block::text("Looked.")]],
            ),
    );

    // At the root: the chain once at start, the nested file once after the Read.
    let run = s.claude_with(bin, mock.base_url(), &s.root, "E2E-MAIN:matrix go", &[]);
    assert_eq!(run.code, Some(0), "{at}: {}\n{}", run.stdout, run.stderr);
    let requests = mock.conversation("E2E-MAIN:matrix");
    let first = text_of_request(&requests[0]);
    assert_eq!(
        count(&first, "ROOT-AGENTS-BODY"),
        1,
        "{at}: root at start\n{first}"
    );
    let last = text_of_request(requests.last().unwrap());
    assert_eq!(
        count(&last, "ROOT-AGENTS-BODY"),
        1,
        "{at}: root once in the session"
    );
    let nested = count(&last, "API-AGENTS-BODY")
        + count(&last, &format!("{root}/packages/api/AGENTS.md (mtime: "));
    assert_eq!(
        nested, 1,
        "{at}: the nested file once, body or path\n{last}"
    );
    let sub = mock.conversation("E2E-SUB:matrix");
    assert!(!sub.is_empty(), "{at}: the sub-agent ran");
    let sub_first = text_of_request(&sub[0]);
    let expected = usize::from(version_tuple(version) >= (2, 0, 44));
    assert_eq!(
        count(&sub_first, "ROOT-AGENTS-BODY"),
        expected,
        "{at}: the root body in the sub-agent's first request (SubagentStart from 2.0.44)\n{sub_first}"
    );
    let id = run.session_id().expect("a session id");

    // Resume after the root file changed: the change once, as a new body
    // (a release that loads the chain itself) or as agentctx's path.
    s.write("AGENTS.md", "ROOT-AGENTS-BODY v2\n");
    let touch = std::process::Command::new("touch")
        .args(["-d", "2030-01-01"])
        .arg(s.root.join("AGENTS.md"))
        .status()
        .unwrap();
    assert!(touch.success());
    let before = mock.requests().len();
    let resumed = s.claude_with(
        bin,
        mock.base_url(),
        &s.root,
        "E2E-MAIN:resumed",
        &["--resume", &id],
    );
    assert_eq!(resumed.code, Some(0), "{at}: {}", resumed.stderr);
    let last = text_of_request(
        main_requests_since(&mock, before)
            .last()
            .expect("a resumed request"),
    );
    let news =
        count(&last, "ROOT-AGENTS-BODY v2") + count(&last, &format!("{root}/AGENTS.md (mtime: "));
    assert_eq!(
        news, 1,
        "{at}: the changed root file once on resume\n{last}"
    );

    // /compact drops what the session was given: the chain comes back once.
    let compact = s.claude_with(
        bin,
        mock.base_url(),
        &s.root,
        "/compact",
        &["--resume", &id],
    );
    assert_eq!(compact.code, Some(0), "{at}: {}", compact.stderr);
    let before = mock.requests().len();
    let after = s.claude_with(
        bin,
        mock.base_url(),
        &s.root,
        "E2E-MAIN:after",
        &["--resume", &id],
    );
    assert_eq!(after.code, Some(0), "{at}: {}", after.stderr);
    let last = text_of_request(
        main_requests_since(&mock, before)
            .last()
            .expect("a request after /compact"),
    );
    let log =
        std::fs::read_to_string(s.home.join(".local/state/agentctx/hook.log")).unwrap_or_default();
    let tail: String = last
        .chars()
        .rev()
        .take(3000)
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .collect();
    assert_eq!(
        count(&last, "ROOT-AGENTS-BODY v2"),
        1,
        "{at}: the chain after /compact\n{tail}\n--- hook log\n{log}"
    );

    // A session started in a subdirectory: the chain from the root down, once each.
    let sub_mock = MockApi::start(
        Script::new().conversation("E2E-MAIN:subdir", vec![vec![Block::text("SUBDIR-DONE")]]),
    );
    let run = s.claude_with(
        bin,
        sub_mock.base_url(),
        &s.root.join("packages/api"),
        "E2E-MAIN:subdir go",
        &[],
    );
    assert_eq!(run.code, Some(0), "{at}: {}", run.stderr);
    let first = text_of_request(&sub_mock.conversation("E2E-MAIN:subdir")[0]);
    assert_eq!(
        count(&first, "ROOT-AGENTS-BODY"),
        1,
        "{at}: root from a subdirectory\n{first}"
    );
    assert_eq!(
        count(&first, "API-AGENTS-BODY"),
        1,
        "{at}: cwd's from a subdirectory\n{first}"
    );
}

#[test]
#[ignore = "needs the Claude Code releases scripts/e2e installs"]
fn every_release_gets_each_agents_md_exactly_once_in_both_modes() {
    for (version, bin) in claude_releases() {
        for replace_loader in [false, true] {
            check(&version, &bin, replace_loader);
        }
    }
}
