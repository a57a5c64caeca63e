//! The Claude Code plugin route: the repository's marketplace
//! (`.claude-plugin/marketplace.json`, the plugin in
//! `packaging/claude-plugin/`) added from the local folder and the plugin
//! installed with the real Claude Code's own commands, then a session
//! whose hooks come from the plugin alone (no `agentctx install`) and run
//! the `agentctx` found on PATH.
//!
//! Run with `scripts/e2e`; the session test is ignored in `cargo test
//! --workspace` because it needs the agent.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests fail loudly")]

use std::process::Command;

use agentctx_e2e::{
    Block, MockApi, Sandbox, Script, agentctx_bin, claude_bin, text_of_request, workspace_root,
};
use agentctx_install::{Parts, edit_claude_settings};
use serde_json::{Value, json};

/// The plugin's hooks file.
fn plugin_hooks() -> Value {
    let path = workspace_root().join("packaging/claude-plugin/hooks/hooks.json");
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// Each event's (matcher, command, timeout) in a hooks object.
fn entries(hooks: &Value) -> Vec<(String, Value, String, Value)> {
    let mut out = Vec::new();
    for (event, groups) in hooks.as_object().unwrap() {
        for group in groups.as_array().unwrap() {
            for hook in group["hooks"].as_array().unwrap() {
                out.push((
                    event.clone(),
                    group["matcher"].clone(),
                    hook["command"].as_str().unwrap().to_owned(),
                    hook["timeout"].clone(),
                ));
            }
        }
    }
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

/// The plugin sets the hooks `agentctx install claude` writes for the
/// pinned Claude Code: the same events, matchers and timeouts, the same
/// command for `agentctx` on PATH; only the PreToolUse guard's message
/// differs (it tells how to install the binary, not to rerun install).
#[test]
fn the_plugin_hooks_are_the_ones_install_writes() {
    let parts = Parts {
        hooks: true,
        ..Parts::default()
    };
    let installed: Value =
        serde_json::from_str(&edit_claude_settings(None, "agentctx", parts, true, None).unwrap())
            .unwrap();
    let ours = entries(&plugin_hooks()["hooks"]);
    let theirs = entries(&installed["hooks"]);
    assert_eq!(ours.len(), theirs.len(), "{ours:?}\n{theirs:?}");
    for (a, b) in ours.iter().zip(&theirs) {
        assert_eq!((&a.0, &a.1, &a.3), (&b.0, &b.1, &b.3));
        // install quotes the program it names; on PATH it is the bare word.
        let command = b.2.replacen("'agentctx'", "agentctx", 1);
        if a.0 == "PreToolUse" {
            let (ours_head, _) = a.2.split_once(" || ").unwrap();
            let (theirs_head, _) = command.split_once(" || ").unwrap();
            assert_eq!(ours_head, theirs_head);
            assert!(a.2.ends_with(">&2; exit 2; }"), "{}", a.2);
        } else {
            assert_eq!(a.2, command);
        }
    }
}

/// `claude ARGS` outside a session, with the sandbox's HOME.
fn claude_cli(s: &Sandbox, path: &str, args: &[&str]) -> String {
    let out = Command::new(claude_bin())
        .args(args)
        .env_clear()
        .env("HOME", &s.home)
        .env("PATH", path)
        .env("LANG", "C.UTF-8")
        .env("TERM", "dumb")
        .env("DISABLE_AUTOUPDATER", "1")
        .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
        .env("DISABLE_TELEMETRY", "1")
        .current_dir(s.path())
        .output()
        .unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "claude {args:?}: {text}");
    text
}

#[test]
#[ignore = "needs the real Claude Code: scripts/e2e"]
fn the_plugin_from_the_local_marketplace_guards_a_session() {
    let s = Sandbox::new();
    s.write(
        ".coding-agent-rules.yaml",
        "system_prompt_extension: \"PLUGIN-RULES-EXTENSION: answer briefly.\"\nfile_patterns:\n  exclude: [\"secrets/\"]\n",
    );
    s.write("secrets/key.txt", "PLUGIN-SECRET-CONTENT\n");
    s.write("src/main.rs", "fn main() {}\n");
    s.commit();

    // agentctx on PATH, as `npm i -g agentctx` or `cargo install` leave it:
    // a link to the binary under test (the sandbox's first program stays
    // beside the file it resolves to).
    let bin = s.path().join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    std::os::unix::fs::symlink(agentctx_bin(), bin.join("agentctx")).unwrap();
    let path = format!("{}:/usr/local/bin:/usr/bin:/bin", bin.display());

    let root = workspace_root().canonicalize().unwrap();
    let added = claude_cli(
        &s,
        &path,
        &["plugin", "marketplace", "add", root.to_str().unwrap()],
    );
    assert!(added.contains("agentctx"), "{added}");
    let installed = claude_cli(&s, &path, &["plugin", "install", "agentctx@agentctx"]);
    assert!(installed.contains("agentctx@agentctx"), "{installed}");
    let listed = claude_cli(&s, &path, &["plugin", "list"]);
    assert!(listed.contains("enabled"), "{listed}");
    // Nothing in the project: the hooks come from the plugin alone.
    assert!(!s.root.join(".claude").exists());

    let secret = s.root.join("secrets/key.txt");
    let mock = MockApi::start(Script::new().conversation(
        "E2E-MAIN:plugin",
        vec![
            vec![Block::tool("Read", json!({"file_path": secret}))],
            vec![Block::text("PLUGIN-DONE")],
        ],
    ));
    let run = s.claude_env(
        mock.base_url(),
        &s.root,
        "E2E-MAIN:plugin go",
        &[],
        &[("PATH", path.as_str())],
    );
    assert_eq!(run.code, Some(0), "{}\n{}", run.stdout, run.stderr);
    let requests = mock.conversation("E2E-MAIN:plugin");
    assert!(requests.len() >= 2, "{} requests", requests.len());
    let first = text_of_request(&requests[0]);
    assert!(
        first.contains("SessionStart hook additional context: "),
        "{first}"
    );
    assert_eq!(
        first.matches("PLUGIN-RULES-EXTENSION").count(),
        1,
        "{first}"
    );
    let denied = tool_result(&requests[1]);
    assert!(denied.contains("exclude pattern `secrets/`"), "{denied}");
    assert!(!denied.contains("PLUGIN-SECRET-CONTENT"), "{denied}");
}

/// The tool results in a request's messages, as text.
fn tool_result(request: &Value) -> String {
    agentctx_e2e::tool_results_text(request["messages"].as_array().unwrap())
}
