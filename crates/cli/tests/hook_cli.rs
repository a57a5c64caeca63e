//! `agentctx hook` replaying payloads recorded from the real agents
//! (fixtures/agents/: Claude Code 2.1.330, Codex 0.169.0) through the
//! binary, and `install`/`uninstall`. The end-to-end suite (crates/e2e)
//! runs the agents themselves.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests fail loudly")]

mod common;

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::Stdio;

use common::{TestEnv, run};
use serde_json::Value;

/// A recorded payload with its placeholders filled in for this test's project.
fn fixture(t: &TestEnv, root: &Path, name: &str) -> String {
    let (dir, file) = name.split_once('/').unwrap();
    let text = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../fixtures/agents")
            .join(dir)
            .join(file),
    )
    .unwrap();
    text.replace("{{SCRATCH}}/repo", &root.display().to_string())
        .replace("{{CWD}}", &root.display().to_string())
        .replace("{{HOME}}", &t.home.display().to_string())
        .replace("{{SCRATCH}}", &t.dir.path().display().to_string())
        .replace("{{PROJECT_SLUG}}", "project")
}

const CLAUDE: &str = "claude-code-2.1.330";
const CODEX: &str = "codex-0.169.0";

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

/// Runs `agentctx hook ARGS` on a recorded payload; returns the parsed
/// stdout (None when empty) and the raw stdout.
fn hook(t: &TestEnv, root: &Path, name: &str, args: &[&str]) -> (Option<Value>, String) {
    hook_raw(t, &fixture(t, root, &format!("{CLAUDE}/{name}")), args)
}

fn codex_hook(t: &TestEnv, root: &Path, name: &str, args: &[&str]) -> (Option<Value>, String) {
    hook_raw(t, &fixture(t, root, &format!("{CODEX}/{name}")), args)
}

/// The variables Claude Code 2.1.330 sets for its hooks (recorded:
/// `claude-hook-environment.json`), for the session `payload` names; none
/// for a Codex payload (it has a `turn_id`).
fn claude_env(t: &TestEnv, payload: &str) -> Vec<(String, String)> {
    claude_env_of(CLAUDE, t, payload)
}

/// [`claude_env`] as the Claude Code release recorded in `dir` sets it.
fn claude_env_of(dir: &str, t: &TestEnv, payload: &str) -> Vec<(String, String)> {
    let value: Value = serde_json::from_str(payload).unwrap_or_default();
    let Some(session) = value["session_id"]
        .as_str()
        .filter(|_| value.get("turn_id").is_none())
    else {
        return Vec::new();
    };
    let root = value["cwd"].as_str().unwrap_or_default();
    let recorded: std::collections::BTreeMap<String, String> = serde_json::from_str(&fixture(
        t,
        Path::new(root),
        &format!("{dir}/claude-hook-environment.json"),
    ))
    .unwrap();
    recorded
        .into_iter()
        .map(|(name, value)| (name, value.replace("{{SESSION_ID}}", session)))
        .collect()
}

fn hook_raw(t: &TestEnv, input: &str, args: &[&str]) -> (Option<Value>, String) {
    let mut child = t
        .cmd()
        .envs(claude_env(t, input))
        .arg("hook")
        .args(args)
        .env("AGENTMEM_ROOT", t.dir.path().join("memory"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // A hook may exit without reading its input (bad arguments): the pipe
    // is then closed, which is no failure of the hook.
    let written = child.stdin.take().unwrap().write_all(input.as_bytes());
    if let Err(error) = written {
        assert_eq!(error.kind(), std::io::ErrorKind::BrokenPipe, "{error}");
    }
    let out = child.wait_with_output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8(out.stdout).unwrap();
    let parsed = (!stdout.trim().is_empty() && !args.contains(&"--explain"))
        .then(|| serde_json::from_str(&stdout).unwrap());
    (parsed, stdout)
}

/// A recorded Codex `apply_patch` payload with another patch in it.
fn with_patch(recorded: &str, patch: &str) -> String {
    let mut value: Value = serde_json::from_str(recorded).unwrap();
    value["tool_input"]["command"] = Value::String(patch.to_owned());
    value.to_string()
}

fn context_of(output: &Value) -> &str {
    output["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap()
}

/// agentctx gives the AGENTS.md bodies (Claude Code's loader off).
const AGENTCTX_BODIES: [&str; 2] = ["-c", "claude_code.agents_md=agentctx"];

#[test]
fn with_claude_codes_loader_on_no_body_is_given_twice() {
    let (t, root) = project();
    let (start, _) = hook(&t, &root, "claude-SessionStart-startup.json", &[]);
    let text = context_of(start.as_ref().unwrap()).to_owned();
    assert!(
        text.starts_with("Keep diffs small.\n\n<project_files"),
        "{text}"
    );
    assert!(
        !text.contains("Root rules."),
        "Claude Code gives the root AGENTS.md itself"
    );
    assert!(!text.contains("generated="), "byte-stable: {text}");
    // Claude Code gives packages/api/AGENTS.md with the Read: nothing from agentctx.
    let (read, _) = hook(&t, &root, "claude-PostToolUse-Read.json", &[]);
    assert!(read.is_none(), "{read:?}");
    // Changed since: Claude Code never gives a file twice, agentctx says so.
    let nested = root.join("packages/api/AGENTS.md");
    std::fs::write(&nested, "API rules, changed.\n").unwrap();
    let file = std::fs::File::options().write(true).open(&nested).unwrap();
    file.set_modified(std::time::SystemTime::now() + std::time::Duration::from_secs(5))
        .unwrap();
    let (again, _) = hook(&t, &root, "claude-PostToolUse-Read.json", &[]);
    let again = context_of(again.as_ref().unwrap()).to_owned();
    assert!(
        again.starts_with("<agentctx-reminder type=\"agents.resolve.paths\">"),
        "{again}"
    );
    assert!(
        !again.contains("<system-reminder"),
        "Claude Code would escape it: {again}"
    );
}

/// Who gives the chain is decided by the release that runs the hook, from
/// what that release gives its hooks (recorded payloads and environment):
/// 2.1.280 has no AGENTS.md loader, 2.1.281 has; 1.0.128 sets no
/// `AI_AGENT` and its transcript does not exist yet at SessionStart, so the
/// release is unknown and agentctx gives the chain.
#[test]
fn the_release_that_runs_decides_who_gives_the_chain() {
    for (release, agentctx_gives) in [
        ("claude-code-1.0.128", true),
        ("claude-code-2.1.280", true),
        ("claude-code-2.1.281", false),
        (CLAUDE, false),
    ] {
        let (t, root) = project();
        let payload = fixture(
            &t,
            &root,
            &format!("{release}/claude-SessionStart-startup.json"),
        );
        let mut child = t
            .cmd()
            .envs(claude_env_of(release, &t, &payload))
            .args(["hook", "--explain"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        child
            .stdin
            .take()
            .unwrap()
            .write_all(payload.as_bytes())
            .unwrap();
        let out = child.wait_with_output().unwrap();
        let explained = String::from_utf8(out.stdout).unwrap();
        assert_eq!(
            explained.contains("Instructions from: "),
            agentctx_gives,
            "{release}: {explained}"
        );
    }
}

#[test]
fn with_agentctx_giving_the_bodies_the_chain_and_reminders_come_from_agentctx() {
    let (t, root) = project();
    let (start, _) = hook(
        &t,
        &root,
        "claude-SessionStart-startup.json",
        &AGENTCTX_BODIES,
    );
    let text = context_of(start.as_ref().unwrap()).to_owned();
    assert!(
        text.starts_with("Keep diffs small.\n\n<agents_context scope=\"initial\">"),
        "{text}"
    );
    let (first, _) = hook(&t, &root, "claude-PostToolUse-Read.json", &AGENTCTX_BODIES);
    assert!(context_of(first.as_ref().unwrap()).contains("packages/api/AGENTS.md (mtime: "));
    let (second, _) = hook(&t, &root, "claude-PostToolUse-Read.json", &AGENTCTX_BODIES);
    assert!(second.is_none(), "a second read reports nothing");
}

#[test]
fn a_sub_agent_has_its_own_reminders() {
    let (t, root) = project();
    // The main agent edits under packages/api: Claude Code's loader gives
    // nothing for an Edit, agentctx reports the file.
    let edit = fixture(&t, &root, &format!("{CLAUDE}/claude-PostToolUse-Edit.json"))
        .replace("packages/web/src/app.tsx", "packages/api/src/server.ts");
    let (main, _) = hook_raw(&t, &edit, &[]);
    assert!(
        context_of(main.as_ref().unwrap()).contains("packages/api/AGENTS.md"),
        "{main:?}"
    );
    // A sub-agent (same session_id, its own agent_id) is told again.
    let sub = edit.replace(
        "\"hook_event_name\"",
        "\"agent_id\": \"a360e772d5cb3b061\", \"agent_type\": \"researcher\", \"hook_event_name\"",
    );
    let (sub_out, _) = hook_raw(&t, &sub, &[]);
    assert!(context_of(sub_out.as_ref().unwrap()).contains("packages/api/AGENTS.md"));
    let (main_again, _) = hook_raw(&t, &edit, &[]);
    assert!(main_again.is_none(), "the main agent was told already");
}

#[test]
fn subagent_start_gives_the_rules_extension() {
    let (t, root) = project();
    let (out, _) = hook(&t, &root, "claude-SubagentStart-researcher.json", &[]);
    let out = out.unwrap();
    assert_eq!(out["hookSpecificOutput"]["hookEventName"], "SubagentStart");
    assert_eq!(context_of(&out), "Keep diffs small.\n");
}

#[test]
fn resume_and_compact() {
    let (t, root) = project();
    // The recordings come from different sessions: make them one.
    let id_of = |name: &str| {
        let value: Value =
            serde_json::from_str(&fixture(&t, &root, &format!("{CLAUDE}/{name}"))).unwrap();
        value["session_id"].as_str().unwrap().to_owned()
    };
    let (startup_id, resume_id) = (
        id_of("claude-SessionStart-startup.json"),
        id_of("claude-SessionStart-resume.json"),
    );
    let one = |name: &str| {
        fixture(&t, &root, &format!("{CLAUDE}/{name}")).replace(&startup_id, &resume_id)
    };
    let (start, _) = hook_raw(
        &t,
        &one("claude-SessionStart-startup.json"),
        &AGENTCTX_BODIES,
    );
    let given = context_of(start.as_ref().unwrap()).to_owned();
    // A resumed process whose transcript does not hold the context (the
    // model has none of it; 2.0.x and 2.1.40 keep it in memory only): it
    // is given again.
    let (resume, _) = hook_raw(
        &t,
        &one("claude-SessionStart-resume.json"),
        &AGENTCTX_BODIES,
    );
    let resume = resume.expect("not in the transcript: given again");
    assert!(context_of(&resume).starts_with("Keep diffs small.\n\n<agents_context"));
    // The transcript holds it, as 2.1.330 keeps it (an attachment, shape
    // from the recorded transcript): nothing changed, nothing said.
    let payload: Value = serde_json::from_str(&one("claude-SessionStart-resume.json")).unwrap();
    let transcript = PathBuf::from(payload["transcript_path"].as_str().unwrap());
    let recorded = std::fs::read_dir(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/transcripts/claude-2.1.330"),
    )
    .unwrap()
    .flatten()
    .map(|e| e.path())
    .find(|p| p.extension().is_some_and(|e| e == "jsonl"))
    .unwrap();
    let mut attachment: Value = std::fs::read_to_string(recorded)
        .unwrap()
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .find(|e| e["attachment"]["type"] == "hook_additional_context")
        .unwrap();
    attachment["attachment"]["content"] = serde_json::json!([given]);
    std::fs::create_dir_all(transcript.parent().unwrap()).unwrap();
    std::fs::write(&transcript, format!("{attachment}\n")).unwrap();
    let (resume, _) = hook_raw(
        &t,
        &one("claude-SessionStart-resume.json"),
        &AGENTCTX_BODIES,
    );
    assert!(resume.is_none(), "nothing changed: nothing said");
    let (compact, _) = hook_raw(
        &t,
        &one("claude-SessionStart-compact.json"),
        &AGENTCTX_BODIES,
    );
    let compact = compact.expect("compaction drops the initial context: it comes back");
    assert!(context_of(&compact).contains("<agents_context scope=\"initial\">"));
    assert!(context_of(&compact).starts_with("Keep diffs small."));
}

#[test]
fn denied_mcp_tool_says_why() {
    let (t, root) = project();
    let (out, _) = hook(
        &t,
        &root,
        "claude-PreToolUse-mcp__github__delete_file.json",
        &[],
    );
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
fn denied_apply_patch_and_write_touching_secrets() {
    let (t, root) = project();
    let patch = with_patch(
        &fixture(
            &t,
            &root,
            &format!("{CODEX}/hook-pre-tool-use-apply-patch.json"),
        ),
        "*** Begin Patch\n*** Update File: secrets/token.txt\n@@\n-a\n+b\n*** End Patch\n",
    );
    let (codex, _) = hook_raw(&t, &patch, &[]);
    let (write, _) = hook(&t, &root, "claude-PreToolUse-Write.json", &[]);
    for out in [codex, write] {
        let reason = out.unwrap()["hookSpecificOutput"]["permissionDecisionReason"]
            .as_str()
            .unwrap()
            .to_owned();
        assert!(reason.contains("Denied: file `"), "{reason}");
        assert!(reason.contains("secrets/"), "{reason}");
    }
}

#[test]
fn allowed_tool_gives_no_output() {
    let (t, root) = project();
    let (out, raw) = hook(&t, &root, "claude-PreToolUse-Read.json", &[]);
    assert!(out.is_none(), "{raw}");
    let (out, raw) = codex_hook(&t, &root, "hook-pre-tool-use-apply-patch.json", &[]);
    assert!(out.is_none(), "{raw}");
}

#[test]
fn subagent_stop_produces_a_capture_but_not_for_internal_agents() {
    let (t, root) = project();
    let (out, _) = hook(&t, &root, "claude-SubagentStop-researcher.json", &[]);
    assert!(out.is_none(), "a capture never outputs a decision");
    let (out, _) = hook(&t, &root, "claude-SubagentStop-internal-agent.json", &[]);
    assert!(out.is_none());
    let files: Vec<PathBuf> = walk(&t.dir.path().join("memory"));
    assert_eq!(files.len(), 1, "{files:?}");
    assert!(
        files[0]
            .to_string_lossy()
            .contains("_AGENT-researcher_RESEARCH_"),
        "{}",
        files[0].display()
    );
    let log = std::fs::read_to_string(t.home.join(".local/state/agentctx/agentmem.log")).unwrap();
    assert!(log.contains("an internal agent"), "{log}");
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() {
            if !path.ends_with(".agentmem") {
                files.extend(walk(&path));
            }
        } else {
            files.push(path);
        }
    }
    files
}

#[test]
fn bad_arguments_and_a_deleted_directory_never_fail_the_agent() {
    let (t, root) = project();
    let input = fixture(&t, &root, &format!("{CLAUDE}/claude-PreToolUse-Read.json"));
    let (out, _) = hook_raw(&t, &input, &["--no-such-flag"]);
    assert!(out.is_none());
    let gone = t.dir.path().join("gone");
    std::fs::create_dir_all(&gone).unwrap();
    let mut child = t
        .cmd()
        .arg("hook")
        .current_dir(&gone)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    std::fs::remove_dir(&gone).unwrap();
    let denied = fixture(&t, &root, &format!("{CLAUDE}/claude-PreToolUse-Write.json"));
    child
        .stdin
        .take()
        .unwrap()
        .write_all(denied.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    let reply: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(reply["hookSpecificOutput"]["permissionDecision"], "deny");
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
    let (_, text) = hook(
        &t,
        &root,
        "claude-PreToolUse-mcp__github__delete_file.json",
        &["--explain"],
    );
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
fn install_claude_merges_is_idempotent_and_uninstall_restores_the_bytes() {
    let (t, root) = project();
    let settings = root.join(".claude/settings.local.json");
    t.write("project/.claude/settings.local.json", SETTINGS);
    let program = ["--program", "/opt/bin/agentctx"];
    let (code, text, err) = run(t.cmd().args(["install", "claude"]).args(program));
    assert_eq!(code, 0, "{err}");
    assert!(text.contains("settings.local.json: installed"), "{text}");
    let installed: Value =
        serde_json::from_str(&std::fs::read_to_string(&settings).unwrap()).unwrap();
    assert_eq!(installed["model"], "opus");
    assert_eq!(
        installed["hooks"]["PreToolUse"][0]["hooks"][0]["command"], "my-linter",
        "the user's hook stays first"
    );
    let pre = installed["hooks"]["PreToolUse"][1]["hooks"][0]["command"]
        .as_str()
        .unwrap();
    assert!(
        pre.starts_with("'/opt/bin/agentctx' hook --agent claude || {"),
        "{pre}"
    );
    let keys: Vec<&String> = installed.as_object().unwrap().keys().collect();
    assert_eq!(keys, ["model", "hooks", "permissions"], "order kept");
    assert!(!root.join(".claude/settings.local.json.bak").exists());
    let before = std::fs::read_to_string(&settings).unwrap();
    let (_, again, _) = run(t.cmd().args(["install", "claude"]).args(program));
    assert!(again.contains("unchanged"), "{again}");
    assert_eq!(std::fs::read_to_string(&settings).unwrap(), before);
    // From a subdirectory the project is the same.
    let (_, sub, _) = run(t
        .cmd()
        .args(["-C", "packages/api", "install", "claude"])
        .args(program));
    assert!(
        sub.contains(&format!("{}: unchanged", settings.display())),
        "{sub}"
    );
    assert_eq!(run(t.cmd().args(["uninstall", "claude"])).0, 0);
    assert_eq!(std::fs::read_to_string(&settings).unwrap(), SETTINGS);
}

#[test]
fn install_codex_user_writes_hooks_json_under_codex_home_and_uninstall_removes_it() {
    let t = TestEnv::new();
    let codex_home = t.dir.path().join("codex-home");
    let (code, dry, _) = run(t.cmd().env("CODEX_HOME", &codex_home).args([
        "install",
        "codex",
        "--user",
        "--dry-run",
        "--program",
        "/opt/bin/agentctx",
    ]));
    assert_eq!(code, 0);
    assert!(dry.contains("hook --agent codex"), "{dry}");
    assert!(
        !codex_home.join("hooks.json").exists(),
        "dry run writes nothing"
    );
    let install = [
        "install",
        "codex",
        "--user",
        "--program",
        "/opt/bin/agentctx",
    ];
    assert_eq!(
        run(t.cmd().env("CODEX_HOME", &codex_home).args(install)).0,
        0
    );
    assert!(codex_home.join("hooks.json").is_file());
    assert_eq!(
        run(t
            .cmd()
            .env("CODEX_HOME", &codex_home)
            .args(["uninstall", "codex", "--user"]))
        .0,
        0
    );
    assert!(!codex_home.join("hooks.json").exists());
    assert!(!codex_home.exists(), "the folder install created is gone");
}

#[test]
fn tool_name_normalisation_and_path_extraction() {
    // Through the binary's explain output, so the test sees what the hook sees.
    let (t, root) = project();
    let patch = with_patch(
        &fixture(
            &t,
            &root,
            &format!("{CODEX}/hook-pre-tool-use-apply-patch.json"),
        ),
        "*** Begin Patch\n*** Update File: packages/api/src/server.ts\n@@\n-a\n+b\n*** End Patch\n",
    );
    let (_, text) = hook_raw(&t, &patch, &["--explain"]);
    assert!(text.contains("file packages/api/src/server.ts: "), "{text}");
    assert!(text.contains("codex event \"PreToolUse\""), "{text}");
}
