//! The project every attack test runs in, and the recorded payload shapes
//! it replays (fixtures/agents/).

#![allow(dead_code, reason = "each test file uses part of it")]

use std::path::{Path, PathBuf};

use agentctx_config::Environment;
use agentctx_hooks::handle;
use agentctx_session::Host;
use agentctx_types::{Agent, Config};
use serde_json::{Value, json};

pub struct Project {
    pub _dir: tempfile::TempDir,
    pub home: PathBuf,
    pub root: PathBuf,
    pub config: Config,
}

pub const RULES: &str = "denied_tools: [github/delete_file, view_image]\nfile_patterns:\n  exclude: [\"secrets/\", \"**/.env\", \"école/\", \"~/.ssh/\"]\n";

impl Project {
    pub fn new(rules: &str) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let base = std::fs::canonicalize(dir.path()).unwrap();
        let home = base.join("home");
        let root = base.join("repo");
        for d in [&home, &root] {
            std::fs::create_dir_all(d).unwrap();
        }
        std::fs::create_dir_all(root.join(".git")).unwrap();
        std::fs::write(root.join(".git/HEAD"), "ref: refs/heads/main\n").unwrap();
        if !rules.is_empty() {
            std::fs::write(root.join(".coding-agent-rules.yaml"), rules).unwrap();
        }
        let p = Self {
            _dir: dir,
            home,
            root,
            config: Config::default(),
        };
        p.file("secrets/key", "SECRET");
        p.file("src/main.rs", "fn main() {}");
        p.file("README.md", "readme");
        p
    }

    /// The same project in strict mode, as a new session sees it: a
    /// session's config is fixed at its start, so the earlier session's
    /// anchor is dropped.
    pub fn strict(mut self) -> Self {
        self.config.project_agent_rules.strict = true;
        // Strict mode as command lines are read: the kernel's strict mode
        // (the sandbox) runs through the binary, in the end-to-end suite.
        self.config.project_agent_rules.sandbox = agentctx_types::SandboxMode::Off;
        let _ = std::fs::remove_dir_all(self.home.join(".local/state/agentctx/anchors"));
        self
    }

    pub fn file(&self, relative: &str, text: &str) -> PathBuf {
        let path = self.root.join(relative);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, text).unwrap();
        path
    }

    pub fn env(&self) -> Environment {
        Environment::from_pairs([("HOME", self.home.to_str().unwrap())])
    }

    /// Runs the hook on `payload`; the reply's denial reason, if denied.
    pub fn run(&self, agent: Agent, payload: &Value) -> Option<String> {
        self.run_raw(agent, payload.to_string().as_bytes())
    }

    pub fn run_raw(&self, agent: Agent, raw: &[u8]) -> Option<String> {
        self.run_as(agent, raw, &self.root, false)
    }

    /// Runs the hook as the agent's CLI does: from `process_cwd`, with the
    /// variables the agent sets for its hooks (Claude Code: recorded in
    /// `claude-hook-environment.json`), and, with `files`, the config the
    /// CLI loads from the files (the nearest `.agentctx.yaml` to the
    /// process's directory; a session takes its own from the root).
    pub fn run_as(
        &self,
        agent: Agent,
        raw: &[u8],
        process_cwd: &Path,
        files: bool,
    ) -> Option<String> {
        let outcome = self.outcome(agent, raw, process_cwd, files);
        outcome.reply.and_then(|r| {
            r.hook_specific_output
                .permission_decision_reason
                .map(|reason| format!("{reason}\n{}", outcome.notes.join("\n")))
        })
    }

    /// The whole outcome of [`Project::run_as`].
    pub fn outcome(
        &self,
        agent: Agent,
        raw: &[u8],
        process_cwd: &Path,
        files: bool,
    ) -> agentctx_hooks::HookOutcome {
        let payload: Value = serde_json::from_slice(raw).unwrap_or_default();
        let mut pairs = vec![("HOME".to_owned(), self.home.display().to_string())];
        if agent == Agent::Claude
            && let Some(session) = payload["session_id"].as_str()
        {
            let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/agents");
            let recorded: std::collections::BTreeMap<String, String> = serde_json::from_str(
                &std::fs::read_to_string(
                    dir.join("claude-code-2.1.330/claude-hook-environment.json"),
                )
                .unwrap(),
            )
            .unwrap();
            for (name, value) in recorded {
                let value = value
                    .replace("{{SESSION_ID}}", session)
                    .replace("{{CWD}}", self.root.to_str().unwrap())
                    .replace("{{HOME}}", self.home.to_str().unwrap());
                pairs.push((name, value));
            }
        }
        let env = Environment::from_pairs(pairs.iter().map(|(k, v)| (k.as_str(), v.as_str())));
        let loaded;
        let mut host = Host::new(&self.config, &env, Some(process_cwd));
        if files {
            let request = agentctx_config::ConfigRequest::new(process_cwd, &env);
            loaded = agentctx_config::load_salvaging(&request).0;
            host.config = &loaded.config;
            host.config_source = agentctx_session::ConfigSource::Files {
                config_file: None,
                sets: &[],
            };
        }
        handle(raw, Some(agent), &host)
    }

    /// A recorded payload of `agent` with `tool_name`/`tool_input` replaced
    /// and the paths pointed at this project.
    pub fn payload(&self, recorded: &str, tool: &str, input: Value) -> Value {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/agents");
        let text = std::fs::read_to_string(dir.join(recorded)).unwrap();
        let mut value: Value = serde_json::from_str(
            &text
                .replace("{{SCRATCH}}/repo", self.root.to_str().unwrap())
                .replace("{{CWD}}", self.root.to_str().unwrap())
                .replace("{{HOME}}", self.home.to_str().unwrap()),
        )
        .unwrap();
        value["tool_name"] = tool.into();
        value["tool_input"] = input;
        value
    }

    /// A recorded Claude Code PreToolUse whose call runs in `cwd` (the
    /// agent `cd`-ed there; Claude Code runs the hook from there too).
    pub fn claude_in(&self, cwd: &Path, tool: &str, input: Value) -> Option<String> {
        let mut payload = self.payload(
            "claude-code-2.1.330/claude-PreToolUse-Read.json",
            tool,
            input,
        );
        payload["cwd"] = cwd.to_str().unwrap().into();
        self.run_as(Agent::Claude, payload.to_string().as_bytes(), cwd, true)
    }

    pub fn claude(&self, tool: &str, input: Value) -> Option<String> {
        let payload = self.payload(
            "claude-code-2.1.330/claude-PreToolUse-Read.json",
            tool,
            input,
        );
        self.run(Agent::Claude, &payload)
    }

    pub fn codex(&self, tool: &str, input: Value) -> Option<String> {
        let payload = self.payload("codex-0.169.0/hook-pre-tool-use-bash.json", tool, input);
        self.run(Agent::Codex, &payload)
    }
}

pub fn denied_by(reason: Option<String>, needle: &str) {
    let reason = reason.unwrap_or_else(|| panic!("must be denied ({needle})"));
    assert!(reason.contains(needle), "expected `{needle}` in:\n{reason}");
}

pub fn patch(body: &str) -> Value {
    json!({"command": format!("*** Begin Patch\n{body}\n*** End Patch\n")})
}

/// Every file below `dir`.
pub fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let path = e.path();
            if path.is_dir() {
                stack.push(path);
            } else {
                out.push(path);
            }
        }
    }
    out
}
