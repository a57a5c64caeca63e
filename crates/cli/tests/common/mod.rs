//! Running the real `agentctx` binary in a clean, temporary environment.

#![allow(dead_code, reason = "each test binary uses a different part")]

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// A temporary HOME with a project directory, and nothing from the caller's environment.
pub struct TestEnv {
    pub dir: tempfile::TempDir,
    pub home: PathBuf,
    pub project: PathBuf,
}

impl TestEnv {
    pub fn new() -> Self {
        let dir = tempfile::tempdir().expect("temp dir");
        let home = dir.path().join("home");
        let project = dir.path().join("project");
        std::fs::create_dir_all(&home).expect("home");
        std::fs::create_dir_all(&project).expect("project");
        Self { dir, home, project }
    }

    /// The binary, started in the project with only HOME and PATH set.
    pub fn cmd(&self) -> Command {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_agentctx"));
        cmd.env_clear()
            .env("HOME", &self.home)
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .current_dir(&self.project)
            .stdin(Stdio::null());
        cmd
    }

    pub fn write(&self, relative: &str, text: &str) -> PathBuf {
        let path = self.dir.path().join(relative);
        std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        std::fs::write(&path, text).expect("write");
        path
    }

    /// Replaces the temp dir's path so snapshots are stable.
    pub fn redact(&self, text: &str) -> String {
        text.replace(&self.dir.path().display().to_string(), "[TMP]")
    }
}

pub fn run(cmd: &mut Command) -> (i32, String, String) {
    let Output {
        status,
        stdout,
        stderr,
    } = cmd.output().expect("run agentctx");
    (
        status.code().unwrap_or(-1),
        String::from_utf8_lossy(&stdout).into_owned(),
        String::from_utf8_lossy(&stderr).into_owned(),
    )
}

pub fn workspace_root() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
}

/// Copies a directory tree (a fixture folder the test may write into).
pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("mkdir");
    for entry in std::fs::read_dir(from).expect("read fixture dir").flatten() {
        let target = to.join(entry.file_name());
        if entry.file_type().expect("file type").is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).expect("copy");
        }
    }
}

/// A copy of fixtures/memory at `<temp>/MEMORY`.
pub fn fixture_memory(t: &TestEnv) -> PathBuf {
    let root = t.dir.path().join("MEMORY");
    copy_dir(&workspace_root().join("fixtures/memory"), &root);
    root
}

/// `agentctx ARGS` with `stdin`, the memory folder at `<temp>/memory`;
/// asserts exit 0 and returns stdout.
pub fn agentctx_with_input(t: &TestEnv, args: &[&str], stdin: &str) -> String {
    use std::io::Write as _;
    let mut child = t
        .cmd()
        .args(args)
        .env("AGENTMEM_ROOT", t.dir.path().join("memory"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start agentctx");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(stdin.as_bytes())
        .expect("write stdin");
    let out = child.wait_with_output().expect("agentctx ran");
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("UTF-8 output")
}

/// A recorded Claude Code 2.1.330 payload (fixtures/agents/) for `cwd`,
/// its session id replaced by `session`.
pub fn claude_payload(t: &TestEnv, cwd: &Path, name: &str, session: &str) -> String {
    let text = std::fs::read_to_string(
        workspace_root()
            .join("fixtures/agents/claude-code-2.1.330")
            .join(name),
    )
    .expect("a recorded payload");
    let mut value: serde_json::Value = serde_json::from_str(
        &text
            .replace("{{CWD}}", &cwd.display().to_string())
            .replace("{{HOME}}", &t.home.display().to_string())
            .replace("{{PROJECT_SLUG}}", "project"),
    )
    .expect("JSON");
    value["session_id"] = serde_json::Value::String(session.to_owned());
    value.to_string()
}

/// The `additionalContext` of a hook's answer to `input` (empty when none).
pub fn hook_context(t: &TestEnv, input: &str, args: &[&str]) -> String {
    let mut all = vec!["hook"];
    all.extend_from_slice(args);
    let out = agentctx_with_input(t, &all, input);
    if out.trim().is_empty() {
        return String::new();
    }
    let value: serde_json::Value = serde_json::from_str(&out).expect("hook JSON");
    value["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}
