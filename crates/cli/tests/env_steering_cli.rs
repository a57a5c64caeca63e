//! A hook process the project could have steered (issue 35, class 5):
//! Gemini CLI and Qwen Code load a project's `.env` into their
//! environment and their hooks inherit it. A `BASH_ENV` there ran code
//! before agentctx's hook; an `XDG_CONFIG_HOME` pointed agentctx at a
//! config of the project's. Such a variable naming the project (or, for
//! code a shell or the loader runs, a temporary folder) makes the hook
//! refuse the session's tool calls. The payload is Gemini CLI 0.61's
//! `BeforeTool` of `read_file` as its dialect reads it.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests fail loudly")]

mod common;

use std::io::Write as _;
use std::process::Stdio;

use common::TestEnv;
use serde_json::{Value, json};

fn hook(t: &TestEnv, env: &[(&str, String)]) -> Value {
    let payload = json!({
        "session_id": "g1", "cwd": t.project, "hook_event_name": "BeforeTool",
        "tool_name": "read_file", "tool_input": {"file_path": t.project.join("README.md")},
    });
    let mut child = t
        .cmd()
        .args(["hook", "--agent", "gemini"])
        .envs(env.iter().map(|(k, v)| (*k, v.as_str())))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(payload.to_string().as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    serde_json::from_slice(&out.stdout).unwrap_or(Value::Null)
}

#[test]
fn a_variable_naming_the_project_makes_the_hook_refuse_tool_calls() {
    let t = TestEnv::new();
    t.write("project/.git/HEAD", "ref: refs/heads/main\n");
    t.write("project/README.md", "README\n");
    t.write(
        "project/.coding-agent-rules.yaml",
        "file_patterns:\n  exclude: [\"secrets/\"]\n",
    );
    // The control: the same call in a clean environment is allowed.
    assert_ne!(hook(&t, &[])["decision"], "deny");
    for (name, value) in [
        ("BASH_ENV", t.project.join(".hookrc").display().to_string()),
        (
            "XDG_CONFIG_HOME",
            t.project.join("cfg").display().to_string(),
        ),
        ("BASH_ENV", "/tmp/hookrc".to_owned()),
    ] {
        let reply = hook(&t, &[(name, value.clone())]);
        assert_eq!(reply["decision"], "deny", "{name}={value}: {reply}");
        assert!(reply["reason"].as_str().unwrap().contains(name), "{reply}");
    }
    // The user's own settings elsewhere are theirs.
    let reply = hook(
        &t,
        &[(
            "XDG_CONFIG_HOME",
            t.home.join(".config").display().to_string(),
        )],
    );
    assert_ne!(reply["decision"], "deny", "{reply}");
}
