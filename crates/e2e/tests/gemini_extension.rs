//! The Gemini CLI extension route: `packaging/gemini-extension` installed
//! with the real Gemini CLI's own `gemini extensions install`, then a
//! session whose hooks come from the extension alone (no `agentctx
//! install`) and run the `agentctx` found on PATH.
//!
//! Run with `scripts/e2e`; ignored in `cargo test --workspace` because it
//! needs the agent.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests fail loudly")]

use std::io::Write as _;
use std::process::{Command, Stdio};

use agentctx_e2e::{
    Block, MockApi, Sandbox, Script, agentctx_bin, gemini_bin, text_of_request, workspace_root,
};
use serde_json::json;

#[test]
#[ignore = "needs the real Gemini CLI: scripts/e2e"]
fn the_extension_installed_by_gemini_guards_a_session() {
    let s = Sandbox::new();
    s.write(
        ".coding-agent-rules.yaml",
        "system_prompt_extension: \"EXTENSION-RULES-EXTENSION: answer briefly.\"\nfile_patterns:\n  exclude: [\"secrets/\"]\n",
    );
    s.write("secrets/key.txt", "EXTENSION-SECRET-CONTENT\n");
    s.write("src/main.rs", "fn main() {}\n");
    s.commit();
    s.gemini_settings();

    // agentctx on PATH: a link to the binary under test.
    let bin = s.path().join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    std::os::unix::fs::symlink(agentctx_bin(), bin.join("agentctx")).unwrap();
    let path = format!("{}:/usr/local/bin:/usr/bin:/bin", bin.display());

    // Gemini CLI asks whether to trust the extension's folder even with
    // --consent (measured with 0.61.0): the user's "y" on stdin.
    let source = workspace_root()
        .join("packaging/gemini-extension")
        .canonicalize()
        .unwrap();
    let mut install = Command::new(gemini_bin())
        .args(["extensions", "install"])
        .arg(&source)
        .arg("--consent")
        .env_clear()
        .env("HOME", &s.home)
        .env("PATH", &path)
        .env("LANG", "C.UTF-8")
        .env("TERM", "dumb")
        .current_dir(s.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    install.stdin.take().unwrap().write_all(b"y\n").unwrap();
    let out = install.wait_with_output().unwrap();
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "{said}");
    assert!(said.contains("installed successfully"), "{said}");
    assert!(!s.root.join(".gemini").exists());

    let secret = s.root.join("secrets/key.txt");
    let mock = MockApi::start(Script::new().conversation(
        "E2E-MAIN:extension",
        vec![
            vec![Block::tool("read_file", json!({"file_path": secret}))],
            vec![Block::text("EXTENSION-DONE")],
        ],
    ));
    let run = s.gemini_env(
        mock.base_url(),
        &s.root,
        "E2E-MAIN:extension go",
        &[("PATH", path.as_str())],
    );
    let requests = mock.conversation("E2E-MAIN:extension");
    assert!(
        requests.len() >= 2,
        "{} requests\n{}\n{}",
        requests.len(),
        run.stdout,
        run.stderr
    );
    let first = text_of_request(&requests[0]);
    assert_eq!(first.matches("[project_files").count(), 1, "{first}");
    assert_eq!(
        first.matches("EXTENSION-RULES-EXTENSION").count(),
        1,
        "{first}"
    );
    let last = text_of_request(requests.last().unwrap());
    assert!(last.contains("exclude pattern `secrets/`"), "{last}");
    for request in &requests {
        assert!(!text_of_request(request).contains("EXTENSION-SECRET-CONTENT"));
    }
}

/// Each event's (matcher, command, timeout) in a hooks object.
fn entries(hooks: &serde_json::Value) -> Vec<(String, String, String, String)> {
    let mut out = Vec::new();
    for (event, groups) in hooks.as_object().unwrap() {
        for group in groups.as_array().unwrap() {
            for hook in group["hooks"].as_array().unwrap() {
                let command = hook["command"].as_str().unwrap();
                // install quotes the program it names; on PATH it is the
                // bare word. The guard's message differs (it tells how to
                // install the binary, not to rerun install).
                let command = command.replacen("'agentctx'", "agentctx", 1);
                let command = command.split(" || ").next().unwrap().to_owned();
                out.push((
                    event.clone(),
                    group["matcher"].to_string(),
                    command,
                    hook["timeout"].to_string(),
                ));
            }
        }
    }
    out.sort();
    out
}

/// The extension sets the hooks `agentctx install gemini` writes: the same
/// events, matchers, timeouts and commands for `agentctx` on PATH.
#[test]
#[ignore = "needs the agentctx binary: scripts/e2e"]
fn the_extension_hooks_are_the_ones_install_writes() {
    let s = Sandbox::new();
    let run = s.agentctx(&s.root, &["install", "gemini", "--program", "agentctx"]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let installed: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(s.root.join(".gemini/settings.json")).unwrap(),
    )
    .unwrap();
    let ours: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(
            workspace_root().join("packaging/gemini-extension/hooks/hooks.json"),
        )
        .unwrap(),
    )
    .unwrap();
    assert_eq!(entries(&ours["hooks"]), entries(&installed["hooks"]));
    let guard = ours["hooks"]["BeforeTool"][0]["hooks"][0]["command"]
        .as_str()
        .unwrap();
    assert!(guard.ends_with(">&2; exit 2; }"), "{guard}");
}
