//! The Codex plugin route: the repository's Codex marketplace
//! (`.agents/plugins/marketplace.json`, the plugin in
//! `packaging/codex-plugin/`) added from the local folder and the plugin
//! installed with the real Codex's own commands, then a session whose
//! hooks come from the plugin alone (no `agentctx install`) and run the
//! `agentctx` found on PATH.
//!
//! Codex 0.169.0 runs a plugin's hooks only with its `plugin_hooks`
//! feature on, and only hooks the user reviewed: the session here passes
//! `--dangerously-bypass-hook-trust` in place of that review (measured:
//! without it, or without the feature, no hook ran).
//!
//! Run with `scripts/e2e`; the session test is ignored in `cargo test
//! --workspace` because it needs the agent.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests fail loudly")]

use std::process::Command;

use agentctx_e2e::{
    Block, MockApi, Sandbox, Script, agentctx_bin, codex_bin, text_of_request, workspace_root,
};
use agentctx_install::edit_codex_hooks;
use serde_json::{Value, json};

/// Each event's (matcher, command head, timeout) in a hooks object: the
/// command up to the PreToolUse guard, whose message differs (it tells how
/// to install the binary, not to rerun install), with install's quotes
/// around the program dropped (on PATH it is the bare word).
fn entries(hooks: &Value) -> Vec<(String, String, String, String)> {
    let mut out = Vec::new();
    for (event, groups) in hooks.as_object().unwrap() {
        for group in groups.as_array().unwrap() {
            for hook in group["hooks"].as_array().unwrap() {
                let command = hook["command"].as_str().unwrap();
                let command = command.replacen("'agentctx'", "agentctx", 1);
                let head = command.split(" || ").next().unwrap().to_owned();
                out.push((
                    event.clone(),
                    group["matcher"].to_string(),
                    head,
                    hook["timeout"].to_string(),
                ));
            }
        }
    }
    out.sort();
    out
}

/// The plugin sets the hooks `agentctx install codex` writes into
/// `hooks.json`: the same events, matchers and commands, Codex's own
/// timeout.
#[test]
fn the_plugin_hooks_are_the_ones_install_writes() {
    let installed: Value =
        serde_json::from_str(&edit_codex_hooks(None, "agentctx", true).unwrap()).unwrap();
    let path = workspace_root().join("packaging/codex-plugin/hooks/hooks.json");
    let ours: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    assert_eq!(entries(&ours["hooks"]), entries(&installed["hooks"]));
    let guard = ours["hooks"]["PreToolUse"][0]["hooks"][0]["command"]
        .as_str()
        .unwrap();
    assert!(guard.ends_with(">&2; exit 2; }"), "{guard}");
}

/// `codex ARGS` outside a session, with the sandbox's homes.
fn codex_cli(s: &Sandbox, args: &[&str]) -> String {
    let out = Command::new(codex_bin())
        .args(args)
        .env_clear()
        .env("HOME", &s.home)
        .env("CODEX_HOME", s.codex_home())
        .env("PATH", "/usr/local/bin:/usr/bin:/bin")
        .env("LANG", "C.UTF-8")
        .current_dir(s.path())
        .output()
        .unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "codex {args:?}: {text}");
    text
}

#[test]
#[ignore = "needs the real Codex: scripts/e2e"]
fn the_plugin_from_the_local_marketplace_runs_its_hooks_in_a_session() {
    let mock = MockApi::start(Script::new().conversation(
        "E2E-CODEX:plugin",
        vec![
            vec![Block::tool(
                "exec_command",
                json!({"cmd": "cat secrets/key.txt"}),
            )],
            vec![Block::text("PLUGIN-DONE")],
        ],
    ));
    let s = Sandbox::new();
    s.write(
        ".coding-agent-rules.yaml",
        "system_prompt_extension: \"CODEX-PLUGIN-EXTENSION: answer briefly.\"\nfile_patterns:\n  exclude: [\"secrets/\"]\n",
    );
    s.write("secrets/key.txt", "CODEX-PLUGIN-SECRET\n");
    s.commit();
    s.codex_config(mock.base_url(), "[features]\nplugin_hooks = true\n");

    // agentctx on PATH: a link to the binary under test.
    let bin = s.path().join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    std::os::unix::fs::symlink(agentctx_bin(), bin.join("agentctx")).unwrap();
    let path = format!("{}:/usr/local/bin:/usr/bin:/bin", bin.display());

    let root = workspace_root().canonicalize().unwrap();
    let added = codex_cli(
        &s,
        &["plugin", "marketplace", "add", root.to_str().unwrap()],
    );
    assert!(
        added.contains(".agents/plugins/marketplace.json")
            || added.contains("Added marketplace `agentctx`"),
        "{added}"
    );
    let installed = codex_cli(&s, &["plugin", "add", "agentctx@agentctx"]);
    assert!(installed.contains("Added plugin `agentctx`"), "{installed}");
    let listed = codex_cli(&s, &["plugin", "list"]);
    assert!(listed.contains("packaging/codex-plugin"), "{listed}");
    assert!(!s.root.join(".codex").exists());

    let run = s.codex_env(
        &s.root,
        "E2E-CODEX:plugin go",
        &["--dangerously-bypass-hook-trust"],
        &[("PATH", path.as_str())],
    );
    assert_eq!(run.code, Some(0), "{}\n{}", run.stdout, run.stderr);
    let requests = mock.conversation("E2E-CODEX:plugin");
    assert!(!requests.is_empty(), "{}", run.stderr);
    let first = text_of_request(&requests[0]);
    assert_eq!(
        first.matches("CODEX-PLUGIN-EXTENSION").count(),
        1,
        "the SessionStart hook ran: {first}"
    );
    assert_eq!(first.matches("<project_files").count(), 1, "{first}");
    for request in &requests {
        assert!(!text_of_request(request).contains("CODEX-PLUGIN-SECRET"));
    }
    assert!(
        run.stderr.contains("Command blocked by PreToolUse hook"),
        "the read of secrets/ was blocked: {}",
        run.stderr
    );
}
