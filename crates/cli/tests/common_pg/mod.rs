//! What the shared store's CLI tests share: a throwaway PostgreSQL cluster
//! per test binary, "machines" (a HOME and memory folder each), clones.

#![allow(dead_code, reason = "each test binary uses its own part")]

use std::io::Write as _;
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};
use std::sync::OnceLock;

use super::support_pg::TempCluster;

pub fn cluster() -> &'static TempCluster {
    static CLUSTER: OnceLock<TempCluster> = OnceLock::new();
    CLUSTER.get_or_init(TempCluster::start)
}

/// A machine: a HOME whose memory folder is its own.
pub struct Machine {
    pub dir: tempfile::TempDir,
    pub store: String,
}

impl Machine {
    pub fn new(store: &str) -> Self {
        Self {
            dir: tempfile::tempdir().unwrap(),
            store: store.to_owned(),
        }
    }

    pub fn memory(&self) -> PathBuf {
        self.dir.path().join("memory")
    }

    pub fn run(&self, args: &[&str], stdin: Option<&str>) -> Output {
        self.run_in(self.dir.path(), args, stdin)
    }

    /// The environment of this machine, for a command of its own.
    pub fn command(&self, cwd: &std::path::Path) -> Command {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_agentctx"));
        cmd.env_clear()
            .env("HOME", self.dir.path())
            .env("PATH", "/usr/bin:/bin")
            .env("AGENTMEM_ROOT", self.memory())
            .env("AGENTMEM_STORE", &self.store)
            .env("XDG_STATE_HOME", self.dir.path().join("state"))
            .current_dir(cwd);
        cmd
    }

    pub fn run_in(&self, cwd: &std::path::Path, args: &[&str], stdin: Option<&str>) -> Output {
        let mut cmd = self.command(cwd);
        cmd.args(args)
            .stdin(if stdin.is_some() {
                Stdio::piped()
            } else {
                Stdio::null()
            })
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = cmd.spawn().unwrap();
        if let Some(text) = stdin {
            child
                .stdin
                .take()
                .unwrap()
                .write_all(text.as_bytes())
                .unwrap();
        }
        child.wait_with_output().unwrap()
    }

    pub fn ok(&self, args: &[&str]) -> String {
        let out = self.run(args, None);
        assert!(
            out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    }

    pub fn capture(&self, agent_id: &str, message: &str) -> Output {
        self.run(&["mem", "capture"], Some(&hook_json(agent_id, message)))
    }

    pub fn outbox(&self) -> usize {
        std::fs::read_dir(self.memory().join(".agentmem/outbox"))
            .map(|d| d.count())
            .unwrap_or(0)
    }
}

pub fn hook_json(agent_id: &str, message: &str) -> String {
    serde_json::json!({
        "session_id": "s-1",
        "transcript_path": "/nonexistent/s-1.jsonl",
        "cwd": "/nonexistent/app",
        "hook_event_name": "SubagentStop",
        "agent_id": agent_id,
        "agent_type": "engineer",
        "agent_transcript_path": format!("/nonexistent/agent-{agent_id}.jsonl"),
        "last_assistant_message": message,
    })
    .to_string()
}

pub fn rows(url: &str) -> i64 {
    let out = Command::new("psql")
        .args([url, "-Atc", "SELECT count(*) FROM agentmem_captures"])
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout)
        .trim()
        .parse()
        .unwrap_or(-1)
}

pub fn log(machine: &Machine) -> String {
    std::fs::read_to_string(machine.dir.path().join("state/agentctx/agentmem.log"))
        .unwrap_or_default()
}

/// A clone of `https://git.example/team/<name>.git` at `dir` (only what
/// identity reads: the remote).
pub fn clone_at(dir: &std::path::Path, name: &str) {
    clone_of(dir, &format!("https://git.example/team/{name}.git"));
}

/// A repository at `dir` whose remote is `url`.
pub fn clone_of(dir: &std::path::Path, url: &str) {
    std::fs::create_dir_all(dir).unwrap();
    for args in [vec!["init", "-q"], vec!["remote", "add", "origin", url]] {
        let ok = Command::new("git")
            .args(&args)
            .current_dir(dir)
            .env("HOME", dir)
            .status()
            .unwrap()
            .success();
        assert!(ok, "git {args:?}");
    }
}

/// A SubagentStop of `agent` in `cwd`.
pub fn hook_json_in(cwd: &std::path::Path, agent_id: &str, agent: &str, message: &str) -> String {
    let mut hook: serde_json::Value = serde_json::from_str(&hook_json(agent_id, message)).unwrap();
    hook["cwd"] = cwd.display().to_string().into();
    hook["agent_type"] = agent.into();
    hook.to_string()
}
