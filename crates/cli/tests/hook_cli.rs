//! `agentctx hook` replaying hook inputs (fixtures/hooks/, written from the
//! documented shapes of both agents) through the binary, and `install`.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests fail loudly")]

mod common;

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::Stdio;

use common::{TestEnv, run};
use serde_json::Value;

fn fixture(name: &str) -> String {
    std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../fixtures/hooks")
            .join(name),
    )
    .unwrap()
}

fn project() -> (TestEnv, PathBuf) {
    let t = TestEnv::new();
    t.write("project/.git/HEAD", "ref: refs/heads/main\n");
    t.write("project/AGENTS.md", "Root rules.\n");
    t.write("project/packages/api/AGENTS.md", "API rules.\n");
    t.write("project/packages/api/src/server.ts", "x\n");
    t.write("project/.coding-agent-rules.yaml", "system_prompt_extension: Keep diffs small.\ndenied_tools: [github/delete_file]\nfile_patterns:\n  exclude: [\"secrets/\"]\n");
    let root = std::fs::canonicalize(&t.project).unwrap();
    (t, root)
}

/// Runs `agentctx hook` on a fixture; returns the parsed stdout (None when empty).
fn hook(t: &TestEnv, root: &Path, name: &str, extra_args: &[&str]) -> (Option<Value>, String) {
    let input = fixture(name)
        .replace("{{CWD}}", &root.display().to_string())
        .replace(
            "{{TRANSCRIPT}}",
            &root.join("t.jsonl").display().to_string(),
        );
    let mut child = t
        .cmd()
        .arg("hook")
        .args(extra_args)
        .env("AGENTMEM_ROOT", t.dir.path().join("memory"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8(out.stdout).unwrap();
    let parsed = (!stdout.trim().is_empty() && !extra_args.contains(&"--explain"))
        .then(|| serde_json::from_str(&stdout).unwrap());
    (parsed, stdout)
}

fn context_of(output: &Value) -> &str {
    output["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap()
}

#[test]
fn a_session_from_start_through_nested_reads_and_an_edit() {
    let (t, root) = project();
    let (start, _) = hook(&t, &root, "claude-session-start.json", &[]);
    let start = start.expect("SessionStart gives the initial context");
    assert_eq!(start["hookSpecificOutput"]["hookEventName"], "SessionStart");
    let text = context_of(&start);
    assert!(
        text.starts_with("Keep diffs small.\n\n<agents_context scope=\"initial\">"),
        "{text}"
    );
    assert!(text.contains("<project_files root=\"project\""), "{text}");

    let (first, _) = hook(&t, &root, "claude-read-nested.json", &[]);
    let first = first.expect("a nested AGENTS.md is reported");
    assert_eq!(first["hookSpecificOutput"]["hookEventName"], "PostToolUse");
    assert!(context_of(&first).contains("packages/api/AGENTS.md (mtime: "));

    let (second, _) = hook(&t, &root, "claude-read-nested.json", &[]);
    assert!(second.is_none(), "a second read reports nothing");

    let nested = root.join("packages/api/AGENTS.md");
    std::fs::write(&nested, "API rules, changed.\n").unwrap();
    let file = std::fs::File::options().write(true).open(&nested).unwrap();
    file.set_modified(std::time::SystemTime::now() + std::time::Duration::from_secs(5))
        .unwrap();
    let (third, _) = hook(&t, &root, "claude-read-nested.json", &[]);
    assert!(third.is_some(), "an edited AGENTS.md is reported again");
}

#[test]
fn resume_and_compact() {
    let (t, root) = project();
    hook(&t, &root, "claude-session-start.json", &[]);
    let (resume, _) = hook(&t, &root, "claude-session-resume.json", &[]);
    assert!(resume.is_none(), "nothing changed: nothing said");
    let (compact, _) = hook(&t, &root, "claude-session-compact.json", &[]);
    let compact = compact.expect("compaction drops the initial bundle: it comes back");
    assert!(context_of(&compact).contains("<agents_context scope=\"initial\">"));
}

#[test]
fn denied_mcp_tool_says_why() {
    let (t, root) = project();
    let (out, _) = hook(&t, &root, "claude-pre-mcp-delete.json", &[]);
    let out = out.expect("a denial");
    let specific = &out["hookSpecificOutput"];
    assert_eq!(specific["permissionDecision"], "deny");
    let reason = specific["permissionDecisionReason"].as_str().unwrap();
    assert!(reason.contains("<system-reminder type=\"permission.decision\">"));
    assert!(
        reason.contains("denied_tools entry `github/delete_file`")
            && reason.contains(".coding-agent-rules.yaml:2"),
        "{reason}"
    );
}

#[test]
fn denied_apply_patch_and_push_files_touching_secrets() {
    let (t, root) = project();
    for name in ["codex-pre-apply-patch.json", "claude-pre-push-files.json"] {
        let (out, _) = hook(&t, &root, name, &[]);
        let out = out.unwrap_or_else(|| panic!("{name} must be denied"));
        let reason = out["hookSpecificOutput"]["permissionDecisionReason"]
            .as_str()
            .unwrap();
        assert!(
            reason.contains("Denied: file `secrets/"),
            "{name}: {reason}"
        );
    }
}

#[test]
fn allowed_tool_gives_no_output() {
    let (t, root) = project();
    let (out, raw) = hook(&t, &root, "claude-pre-edit-allowed.json", &[]);
    assert!(out.is_none(), "{raw}");
}

#[test]
fn subagent_stop_produces_a_capture() {
    let (t, root) = project();
    let (out, _) = hook(&t, &root, "claude-subagent-stop.json", &[]);
    assert!(out.is_none(), "a capture never outputs a decision");
    let memory = t.dir.path().join("memory/RESEARCH");
    let month = std::fs::read_dir(&memory)
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let file = std::fs::read_dir(month)
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    assert!(
        file.to_string_lossy()
            .contains("_AGENT-researcher_RESEARCH_mapped-the-api-routes"),
        "{}",
        file.display()
    );
}

#[test]
fn garbage_and_unknown_events_give_nothing_and_exit_0() {
    let (t, _) = project();
    for input in [
        "not json at all",
        "{}",
        "{\"hook_event_name\": \"Notification\"}",
        "",
    ] {
        let mut child = t
            .cmd()
            .arg("hook")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        child
            .stdin
            .take()
            .unwrap()
            .write_all(input.as_bytes())
            .unwrap();
        let out = child.wait_with_output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{input:?}");
        assert!(out.stdout.is_empty(), "{input:?}");
    }
    assert!(t.home.join(".local/state/agentctx/hook.log").is_file());
}

#[test]
fn explain_says_what_and_why() {
    let (t, root) = project();
    let (_, text) = hook(&t, &root, "claude-pre-mcp-delete.json", &["--explain"]);
    assert!(
        text.contains("- tool github/delete_file: tool `github/delete_file` is denied"),
        "{text}"
    );
    assert!(text.contains("\"permissionDecision\": \"deny\""), "{text}");
}

#[test]
fn context_is_byte_stable_and_honours_the_position() {
    let (t, _) = project();
    let once = run(t.cmd().args(["context", "--no-timestamp"])).1;
    let twice = run(t.cmd().args(["context", "--no-timestamp"])).1;
    assert_eq!(once, twice);
    assert!(
        once.starts_with("Keep diffs small.\n\n<agents_context"),
        "{once}"
    );
    let (_, user, _) = run(t.cmd().args([
        "context",
        "--no-timestamp",
        "-c",
        "file_list_context.position=user_message",
    ]));
    let (system, prefix) = user.split_once("--- user message prefix ---\n").unwrap();
    assert!(
        !system.contains("<project_files") && prefix.starts_with("<project_files"),
        "{user}"
    );
    let (_, json, _) = run(t.cmd().args(["context", "--no-timestamp", "--json"]));
    let value: Value = serde_json::from_str(&json).unwrap();
    let kinds: Vec<&str> = value["system"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["kind"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["rules", "agents", "files"]);
    assert!(value["tokens"]["total"].as_u64().unwrap() > 0);
}

#[test]
fn context_with_a_system_prompt_and_tools_follows_the_spec_order() {
    let (t, _) = project();
    t.write("project/base.txt", "You are a coding agent.\n");
    t.write("project/tools.txt", "Tools: Read, Edit.\n");
    let (code, text, _) = run(t.cmd().args([
        "context",
        "--no-timestamp",
        "--system-prompt",
        "base.txt",
        "--tool-descriptions",
        "tools.txt",
    ]));
    assert_eq!(code, 0);
    assert!(
        text.starts_with(
            "You are a coding agent.\n\nKeep diffs small.\n\nTools: Read, Edit.\n\n<agents_context"
        ),
        "{text}"
    );
}

#[test]
fn a_broken_part_is_left_out_with_a_warning() {
    let (t, _) = project();
    let (code, text, stderr) = run(t.cmd().args([
        "context",
        "--no-timestamp",
        "-c",
        "file_list_context.exclude_patterns=[\"a[\"]",
    ]));
    assert_eq!(code, 0);
    assert!(stderr.contains("file list left out"), "{stderr}");
    assert!(
        text.contains("<agents_context") && !text.contains("<project_files"),
        "{text}"
    );
}

const SETTINGS: &str = r#"{
  "model": "opus",
  "hooks": {
    "PreToolUse": [
      { "matcher": "Bash", "hooks": [ { "type": "command", "command": "my-linter" } ] }
    ]
  },
  "permissions": { "allow": ["Read"] }
}
"#;

#[test]
fn install_claude_merges_is_idempotent_and_uninstall_restores() {
    let (t, root) = project();
    let settings = root.join(".claude/settings.json");
    t.write("project/.claude/settings.json", SETTINGS);
    assert_eq!(run(t.cmd().args(["install", "claude"])).0, 0);
    let installed: Value =
        serde_json::from_str(&std::fs::read_to_string(&settings).unwrap()).unwrap();
    assert_eq!(installed["model"], "opus");
    assert_eq!(
        installed["hooks"]["PreToolUse"][0]["hooks"][0]["command"], "my-linter",
        "the user's hook stays first"
    );
    assert_eq!(
        installed["hooks"]["PreToolUse"][1]["hooks"][0]["command"],
        "agentctx hook"
    );
    for event in ["SessionStart", "PostToolUse", "SubagentStop"] {
        assert_eq!(
            installed["hooks"][event][0]["hooks"][0]["command"], "agentctx hook",
            "{event}"
        );
    }
    let keys: Vec<&String> = installed.as_object().unwrap().keys().collect();
    assert_eq!(keys, ["model", "hooks", "permissions"], "order kept");
    assert_eq!(
        std::fs::read_to_string(root.join(".claude/settings.json.bak")).unwrap(),
        SETTINGS
    );
    let before = std::fs::read_to_string(&settings).unwrap();
    let (_, again, _) = run(t.cmd().args(["install", "claude"]));
    assert!(again.contains("unchanged"), "{again}");
    assert_eq!(std::fs::read_to_string(&settings).unwrap(), before);
    assert_eq!(run(t.cmd().args(["uninstall", "claude"])).0, 0);
    let restored: Value =
        serde_json::from_str(&std::fs::read_to_string(&settings).unwrap()).unwrap();
    assert_eq!(restored, serde_json::from_str::<Value>(SETTINGS).unwrap());
}

#[test]
fn install_codex_user_writes_hooks_and_config_toml_reversibly() {
    let t = TestEnv::new();
    let config = "# my codex settings\nmodel = \"o4\"\n\n[features]\nweb_search = true\n";
    t.write("home/.codex/config.toml", config);
    let (code, dry, _) = run(t.cmd().args(["install", "codex", "--user", "--dry-run"]));
    assert_eq!(code, 0);
    assert!(
        dry.contains("+notify = [\"agentctx\", \"mem\", \"capture\"]"),
        "{dry}"
    );
    assert!(
        !t.home.join(".codex/hooks.json").exists(),
        "dry run writes nothing"
    );
    assert_eq!(run(t.cmd().args(["install", "codex", "--user"])).0, 0);
    let toml = std::fs::read_to_string(t.home.join(".codex/config.toml")).unwrap();
    assert!(
        toml.starts_with("# my codex settings\nmodel = \"o4\"\n"),
        "{toml}"
    );
    assert!(
        toml.contains("codex_hooks = true # added by agentctx")
            && toml.contains("web_search = true"),
        "{toml}"
    );
    assert!(t.home.join(".codex/hooks.json").is_file());
    assert!(
        run(t.cmd().args(["install", "codex", "--user"]))
            .1
            .matches("unchanged")
            .count()
            == 2
    );
    assert_eq!(run(t.cmd().args(["uninstall", "codex", "--user"])).0, 0);
    assert_eq!(
        std::fs::read_to_string(t.home.join(".codex/config.toml")).unwrap(),
        config
    );
}

#[test]
fn tool_name_normalisation_and_path_extraction() {
    // Through the binary's explain output, so the test sees what the hook sees.
    let (t, root) = project();
    let (_, text) = hook(&t, &root, "codex-pre-apply-patch.json", &["--explain"]);
    assert!(
        text.contains("file packages/api/src/server.ts: ")
            && text.contains("file secrets/token.txt: "),
        "{text}"
    );
}
