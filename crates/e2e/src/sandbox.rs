//! A scratch HOME and project, and the agent CLIs run in it.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The workspace root.
pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Where `scripts/e2e` installs the agents.
pub(crate) fn agents_dir() -> PathBuf {
    std::env::var_os("AGENTCTX_E2E_AGENTS")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace_root().join("target/e2e/agents"))
}

/// The Claude Code CLI `scripts/e2e` installed (`AGENTCTX_E2E_AGENTS`
/// points elsewhere). Panics with what to run when it is missing: the
/// suite fails, it never skips.
pub fn claude_bin() -> PathBuf {
    let bin = agents_dir().join("node_modules/.bin/claude");
    assert!(
        bin.exists(),
        "Claude Code is not installed at {}: run scripts/e2e (it installs the pinned version from npm)",
        bin.display()
    );
    bin
}

/// The older Claude Code releases `scripts/e2e` installed, with their
/// binaries (`AGENTCTX_E2E_CLAUDE_CODE_ERAS`). Panics when one is missing.
pub fn claude_eras() -> Vec<(String, PathBuf)> {
    let eras = std::env::var("AGENTCTX_E2E_CLAUDE_CODE_ERAS")
        .expect("scripts/e2e sets AGENTCTX_E2E_CLAUDE_CODE_ERAS");
    eras.split_whitespace()
        .map(|era| {
            let bin = agents_dir().join(format!("eras/{era}/node_modules/.bin/claude"));
            assert!(
                bin.exists(),
                "Claude Code {era} is not installed at {}: run scripts/e2e",
                bin.display()
            );
            (era.to_owned(), bin)
        })
        .collect()
}

/// `X.Y.Z` as a tuple (a part that is not a number counts as 0).
pub fn version_tuple(version: &str) -> (u32, u32, u32) {
    let mut parts = version.split('.').map(|p| p.parse::<u32>().unwrap_or(0));
    (
        parts.next().unwrap_or(0),
        parts.next().unwrap_or(0),
        parts.next().unwrap_or(0),
    )
}

/// Every Claude Code release the suite has: the older ones
/// ([`claude_eras`]) and the pinned one, each with its version.
pub fn claude_releases() -> Vec<(String, PathBuf)> {
    let mut releases = claude_eras();
    let current = std::env::var("AGENTCTX_E2E_CLAUDE_CODE_VERSION")
        .expect("scripts/e2e sets AGENTCTX_E2E_CLAUDE_CODE_VERSION");
    releases.push((current, claude_bin()));
    releases
}

/// The Codex CLI `scripts/e2e` installed.
pub fn codex_bin() -> PathBuf {
    let bin = agents_dir().join("node_modules/.bin/codex");
    assert!(
        bin.exists(),
        "Codex is not installed at {}: run scripts/e2e (it installs the pinned version from npm)",
        bin.display()
    );
    bin
}

/// The target folder the test binary runs from (`target/debug`).
fn target_profile_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("the test binary's path");
    // target/debug/deps/<test> → target/debug
    exe.parent()
        .and_then(Path::parent)
        .expect("target/<profile>/deps")
        .to_path_buf()
}

/// The agentctx binary under test: `AGENTCTX_E2E_AGENTCTX`, else the one
/// `scripts/e2e` built next to the tests.
pub fn agentctx_bin() -> PathBuf {
    match std::env::var_os("AGENTCTX_E2E_AGENTCTX") {
        Some(path) => PathBuf::from(path),
        None => e2e_bin("agentctx"),
    }
}

/// A binary of the workspace in the test's target folder.
pub fn e2e_bin(name: &str) -> PathBuf {
    let bin = target_profile_dir().join(name);
    assert!(
        bin.exists(),
        "{} is not built: run scripts/e2e (it builds agentctx and the suite's helpers first)",
        bin.display()
    );
    bin
}

/// How agents start under `agentctx run`: the agent's name, hosts
/// allowed, variables added.
type UnderRun = (String, Vec<String>, Vec<(String, String)>);

/// A scratch HOME and a git project in a temporary folder.
pub struct Sandbox {
    dir: tempfile::TempDir,
    /// Agents start under `agentctx run --agent AGENT --allow HOST...`.
    under_run: std::cell::RefCell<Option<UnderRun>>,
    /// `$HOME` for the agent.
    pub home: PathBuf,
    /// The project root (canonical).
    pub root: PathBuf,
}

/// How an agent run ended.
#[derive(Debug)]
pub struct AgentRun {
    /// Exit status code.
    pub code: Option<i32>,
    /// Standard output (stream-json for Claude Code).
    pub stdout: String,
    /// Standard error.
    pub stderr: String,
}

impl AgentRun {
    /// The session id from Claude Code's stream-json output.
    pub fn session_id(&self) -> Option<String> {
        self.stdout.lines().find_map(|line| {
            let value: serde_json::Value = serde_json::from_str(line).ok()?;
            value["session_id"].as_str().map(str::to_owned)
        })
    }
}

impl Sandbox {
    /// A new sandbox with an empty git repository as the project.
    pub fn new() -> Self {
        Self::new_in(&std::env::temp_dir())
    }

    /// A sandbox in `parent` (a home outside the temporary folders, which
    /// agentctx's sandbox leaves writable).
    pub fn new_in(parent: &Path) -> Self {
        std::fs::create_dir_all(parent).expect("parent of the sandbox");
        let dir = tempfile::tempdir_in(parent).expect("temp dir");
        let base = std::fs::canonicalize(dir.path()).expect("canonical temp dir");
        let home = base.join("home");
        let root = base.join("repo");
        std::fs::create_dir_all(&home).expect("home");
        std::fs::create_dir_all(&root).expect("repo");
        let git = Command::new("git")
            .args(["init", "-q", "-b", "main"])
            .current_dir(&root)
            .status()
            .expect("git is installed (scripts/e2e installs it)");
        assert!(git.success());
        Self {
            dir,
            under_run: std::cell::RefCell::new(None),
            home,
            root,
        }
    }

    /// The sandbox folder.
    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    /// Writes a file under the project.
    pub fn write(&self, relative: &str, text: &str) -> PathBuf {
        let path = self.root.join(relative);
        std::fs::create_dir_all(path.parent().expect("a parent")).expect("mkdir");
        std::fs::write(&path, text).expect("write");
        path
    }

    /// Commits everything (Claude Code reads the git status at start).
    pub fn commit(&self) {
        for args in [
            vec!["add", "-A"],
            vec![
                "-c",
                "user.email=e2e@example.invalid",
                "-c",
                "user.name=e2e",
                "commit",
                "-qm",
                "e2e",
            ],
        ] {
            let status = Command::new("git")
                .args(&args)
                .current_dir(&self.root)
                .status()
                .expect("git");
            assert!(status.success());
        }
    }

    /// The environment every agent run gets: this HOME, a PATH without
    /// agentctx on it, no network but 127.0.0.1.
    pub(crate) fn base_env(&self, cmd: &mut Command) {
        cmd.env_clear()
            .env("HOME", &self.home)
            // Not `~/.codex`: everything that finds Codex's files must honour it.
            .env("CODEX_HOME", self.codex_home())
            .env("PATH", "/usr/local/bin:/usr/bin:/bin")
            .env("LANG", "C.UTF-8")
            .env("TERM", "dumb");
    }

    /// From now on every agent this sandbox starts runs under `agentctx
    /// run --agent AGENT`, with `allow` allowed besides its profile's
    /// hosts (the mock's `127.0.0.1:PORT` where its URL is not in a
    /// variable the profile names) and `env` added to its environment.
    pub fn under_run(&self, agent: &str, allow: &[&str], env: &[(&str, &str)]) {
        *self.under_run.borrow_mut() = Some((
            agent.to_owned(),
            allow.iter().map(|a| (*a).to_owned()).collect(),
            env.iter()
                .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
                .collect(),
        ));
    }

    /// Runs `cmd` (an agent), under `agentctx run` when asked.
    pub(crate) fn launch(&self, cmd: Command) -> AgentRun {
        let Some((agent, allow, env)) = self.under_run.borrow().clone() else {
            return run(cmd);
        };
        let mut wrapped = Command::new(agentctx_bin());
        wrapped.env_clear();
        for (key, value) in cmd.get_envs() {
            match value {
                Some(value) => wrapped.env(key, value),
                None => wrapped.env_remove(key),
            };
        }
        wrapped.envs(env);
        wrapped.args(["run", "--agent", &agent]);
        for host in &allow {
            wrapped.args(["--allow", host]);
        }
        wrapped
            .arg("--")
            .arg(cmd.get_program())
            .args(cmd.get_args());
        if let Some(dir) = cmd.get_current_dir() {
            wrapped.current_dir(dir);
        }
        wrapped.stdin(Stdio::null());
        run(wrapped)
    }

    /// `agentctx ARGS` in `cwd` with this sandbox's HOME.
    pub fn agentctx(&self, cwd: &Path, args: &[&str]) -> AgentRun {
        let mut cmd = Command::new(agentctx_bin());
        self.base_env(&mut cmd);
        cmd.args(args).current_dir(cwd).stdin(Stdio::null());
        run(cmd)
    }

    /// `agentctx ARGS` in `cwd` with `env` added to this sandbox's.
    pub fn agentctx_env(&self, cwd: &Path, args: &[&str], env: &[(&str, &str)]) -> AgentRun {
        let mut cmd = Command::new(agentctx_bin());
        self.base_env(&mut cmd);
        cmd.envs(env.iter().copied())
            .args(args)
            .current_dir(cwd)
            .stdin(Stdio::null());
        run(cmd)
    }

    /// `agentctx ARGS` in `cwd` with `input` on stdin.
    pub fn agentctx_with_input(&self, cwd: &Path, args: &[&str], input: &str) -> AgentRun {
        use std::io::Write as _;
        let mut cmd = Command::new(agentctx_bin());
        self.base_env(&mut cmd);
        cmd.args(args)
            .current_dir(cwd)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = cmd.spawn().expect("start agentctx");
        let _ = child
            .stdin
            .take()
            .expect("stdin")
            .write_all(input.as_bytes());
        let out = child.wait_with_output().expect("agentctx ran");
        AgentRun {
            code: out.status.code(),
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        }
    }

    /// `agentctx install <agent> --program <this build> <extra...>` in the
    /// project: the one way every test installs.
    pub fn install(&self, agent: &str, extra: &[&str]) -> AgentRun {
        let program = agentctx_bin();
        let program = program.to_string_lossy().into_owned();
        let mut args = vec!["install", agent, "--program", program.as_str()];
        args.extend_from_slice(extra);
        self.agentctx(&self.root, &args)
    }

    /// The texts of [`Sandbox::captures`], in the same order.
    pub fn capture_texts(&self) -> Vec<String> {
        self.captures()
            .iter()
            .map(|f| std::fs::read_to_string(f).unwrap_or_default())
            .collect()
    }

    /// The capture files AgentMem wrote under this sandbox's default
    /// memory folder (`~/.agent-kit/MEMORY`), sorted.
    pub fn captures(&self) -> Vec<PathBuf> {
        fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
            for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
                let path = entry.path();
                if path.is_dir() && !path.ends_with(".agentmem") {
                    walk(&path, out);
                } else if path.extension().is_some_and(|e| e == "md") {
                    out.push(path);
                }
            }
        }
        let mut out = Vec::new();
        walk(&self.home.join(".agent-kit/MEMORY"), &mut out);
        out.sort();
        out
    }

    /// `claude -p PROMPT` in `cwd` against the mock, `bypassPermissions`
    /// unless `extra` names another `--permission-mode`,
    /// stream-json output, hooks timed in `<sandbox>/claude-debug.log`.
    pub fn claude(&self, mock_url: &str, cwd: &Path, prompt: &str, extra: &[&str]) -> AgentRun {
        self.claude_with(&claude_bin(), mock_url, cwd, prompt, extra)
    }

    /// [`Sandbox::claude_with`] with more environment variables.
    pub fn claude_env(
        &self,
        mock_url: &str,
        cwd: &Path,
        prompt: &str,
        extra: &[&str],
        env: &[(&str, &str)],
    ) -> AgentRun {
        self.claude_run(&claude_bin(), mock_url, cwd, prompt, extra, env)
    }

    /// [`Sandbox::claude`] with another Claude Code binary (an older release).
    pub fn claude_with(
        &self,
        bin: &Path,
        mock_url: &str,
        cwd: &Path,
        prompt: &str,
        extra: &[&str],
    ) -> AgentRun {
        self.claude_run(bin, mock_url, cwd, prompt, extra, &[])
    }

    fn claude_run(
        &self,
        bin: &Path,
        mock_url: &str,
        cwd: &Path,
        prompt: &str,
        extra: &[&str],
        env: &[(&str, &str)],
    ) -> AgentRun {
        let mut cmd = Command::new(bin);
        self.base_env(&mut cmd);
        cmd.envs(env.iter().copied());
        cmd.env("ANTHROPIC_BASE_URL", mock_url)
            .env("ANTHROPIC_API_KEY", "sk-e2e-mock")
            .env("DISABLE_AUTOUPDATER", "1")
            .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
            .env("DISABLE_TELEMETRY", "1")
            // bypassPermissions is refused to root outside a sandbox.
            .env("IS_SANDBOX", "1")
            .args(["-p", prompt, "--output-format", "stream-json", "--verbose"]);
        if !extra.contains(&"--permission-mode") {
            cmd.args(["--permission-mode", "bypassPermissions"]);
        }
        // Older releases have no --debug-file.
        if bin == claude_bin().as_path() {
            cmd.arg("--debug-file")
                .arg(self.path().join("claude-debug.log"));
        }
        cmd.args(extra).current_dir(cwd).stdin(Stdio::null());
        self.launch(cmd)
    }
}

impl Sandbox {
    /// Codex's home: `$CODEX_HOME` for every run (`<sandbox>/codex-home`,
    /// deliberately not `~/.codex`).
    pub fn codex_home(&self) -> PathBuf {
        self.path().join("codex-home")
    }

    /// Writes Codex's user config for the mock: a custom provider on the
    /// mock's URL (`wire_api = "responses"`), a model Codex knows (an
    /// unknown one gets no `apply_patch` tool), the project trusted, plus
    /// `extra` TOML. Replaces the file.
    pub fn codex_config(&self, mock_url: &str, extra: &str) {
        let home = self.codex_home();
        std::fs::create_dir_all(&home).expect("codex home");
        let config = format!(
            "model = \"gpt-5.5\"\nmodel_provider = \"mock\"\n{extra}\n\n[model_providers.mock]\nname = \"mock\"\nbase_url = \"{mock_url}/v1\"\nenv_key = \"E2E_MOCK_KEY\"\nwire_api = \"responses\"\n\n[projects.\"{}\"]\ntrust_level = \"trusted\"\n",
            self.root.display()
        );
        std::fs::write(home.join("config.toml"), config).expect("codex config");
    }

    /// `codex exec PROMPT` in `cwd` against the mock (its config from
    /// [`Sandbox::codex_config`]), approvals and sandbox bypassed, plus `extra`.
    pub fn codex(&self, cwd: &Path, prompt: &str, extra: &[&str]) -> AgentRun {
        self.codex_with(cwd, prompt, extra, false)
    }

    /// [`Sandbox::codex`], with Codex's own sandbox on (`own_sandbox`:
    /// approvals never, its default workspace-write sandbox). Codex will
    /// not make its sandbox helper under the temporary folder, where
    /// `CODEX_HOME` is here, so `TMPDIR` points elsewhere for it.
    pub fn codex_with(
        &self,
        cwd: &Path,
        prompt: &str,
        extra: &[&str],
        own_sandbox: bool,
    ) -> AgentRun {
        self.codex_run(cwd, prompt, extra, own_sandbox, &[])
    }

    /// [`Sandbox::codex`] with more environment variables (a `PATH` with
    /// agentctx on it, for hooks that name it by that name).
    pub fn codex_env(
        &self,
        cwd: &Path,
        prompt: &str,
        extra: &[&str],
        env: &[(&str, &str)],
    ) -> AgentRun {
        self.codex_run(cwd, prompt, extra, false, env)
    }

    fn codex_run(
        &self,
        cwd: &Path,
        prompt: &str,
        extra: &[&str],
        own_sandbox: bool,
        env: &[(&str, &str)],
    ) -> AgentRun {
        let mut cmd = Command::new(codex_bin());
        self.base_env(&mut cmd);
        cmd.envs(env.iter().copied());
        cmd.env("E2E_MOCK_KEY", "sk-e2e-mock").arg("exec");
        if own_sandbox {
            let tmp = self.path().join("codex-tmp");
            std::fs::create_dir_all(&tmp).expect("codex tmp");
            cmd.env("TMPDIR", tmp);
        } else {
            cmd.arg("--dangerously-bypass-approvals-and-sandbox");
        }
        cmd.arg("--skip-git-repo-check")
            .args(extra)
            .arg(prompt)
            .current_dir(cwd)
            .stdin(Stdio::null());
        self.launch(cmd)
    }

    /// Claude Code's own timing of every run of agentctx's hook, in
    /// milliseconds, by event (`PreToolUse`, `PostToolUse`, ...), from its
    /// debug log (`Hooks: PreToolUse:Read [<command>] finished with status 0 (4ms)`).
    pub fn claude_hook_timings(&self) -> std::collections::BTreeMap<String, Vec<u64>> {
        let log = std::fs::read_to_string(self.path().join("claude-debug.log")).unwrap_or_default();
        let mut timings: std::collections::BTreeMap<String, Vec<u64>> = Default::default();
        for line in log.lines() {
            let Some(rest) = line.split("Hooks: ").nth(1) else {
                continue;
            };
            if !rest.contains("agentctx' hook") || !rest.contains("finished with status") {
                continue;
            }
            let event = rest.split([':', ' ']).next().unwrap_or_default().to_owned();
            let ms = rest
                .rsplit('(')
                .next()
                .and_then(|t| t.strip_suffix("ms)"))
                .and_then(|t| t.parse::<u64>().ok());
            if let Some(ms) = ms {
                timings.entry(event).or_default().push(ms);
            }
        }
        timings
    }
}

impl Default for Sandbox {
    fn default() -> Self {
        Self::new()
    }
}

pub(crate) fn run(mut cmd: Command) -> AgentRun {
    let out = cmd.output().expect("start the program");
    AgentRun {
        code: out.status.code(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

impl Sandbox {
    /// Adds `e2e-record-hook <sandbox>/hooks` for every event agentctx
    /// handles but `skip` to the user settings: it prints nothing, so it
    /// changes nothing for the agent. (Claude Code before 2.0.44 ignores a
    /// hooks object that names an event it does not know: skip
    /// `SubagentStart` there.)
    pub fn record_claude_hooks(&self, skip: &[&str]) {
        let recorder = e2e_bin("e2e-record-hook");
        let command = format!(
            "'{}' '{}'",
            recorder.display(),
            self.path().join("hooks").display()
        );
        let entry = serde_json::json!([{"matcher": "*", "hooks": [{"type": "command", "command": command}]}]);
        let mut hooks = serde_json::Map::new();
        for event in [
            "SessionStart",
            "SubagentStart",
            "PreToolUse",
            "PostToolUse",
            "SubagentStop",
            "Stop",
        ] {
            if !skip.contains(&event) {
                hooks.insert(event.into(), entry.clone());
            }
        }
        let settings = self.home.join(".claude/settings.json");
        std::fs::create_dir_all(settings.parent().expect("a parent")).expect("mkdir");
        std::fs::write(
            &settings,
            serde_json::to_string_pretty(&serde_json::json!({"hooks": hooks})).expect("JSON"),
        )
        .expect("user settings");
    }

    /// [`Sandbox::record_claude_fixtures_for`] the pinned version.
    pub fn record_claude_fixtures(&self) -> usize {
        let version = std::env::var("AGENTCTX_E2E_CLAUDE_CODE_VERSION")
            .expect("scripts/e2e sets AGENTCTX_E2E_CLAUDE_CODE_VERSION");
        self.record_claude_fixtures_for(&version)
    }

    /// With `AGENTCTX_E2E_RECORD` set, copies the hook payloads that
    /// `e2e-record-hook` saved in `<sandbox>/hooks` to
    /// `fixtures/agents/claude-code-<version>/`, the first of each kind
    /// (`claude-<Event>[-<tool or source or agent type>][-subagent].json`),
    /// with this sandbox's paths replaced by `{{CWD}}`, `{{HOME}}`,
    /// `{{PROJECT_SLUG}}` and `{{SCRATCH}}`, and the variables Claude Code
    /// set for the first SessionStart (`claude-hook-environment.json`).
    /// Returns how many payloads it wrote.
    pub fn record_claude_fixtures_for(&self, version: &str) -> usize {
        if std::env::var_os("AGENTCTX_E2E_RECORD").is_none() {
            return 0;
        }
        let out = workspace_root().join(format!("fixtures/agents/claude-code-{version}"));
        std::fs::create_dir_all(&out).expect("fixtures folder");
        let mut payloads: Vec<PathBuf> = std::fs::read_dir(self.path().join("hooks"))
            .map(|dir| dir.flatten().map(|e| e.path()).collect())
            .unwrap_or_default();
        payloads.retain(|p| p.extension().is_some_and(|e| e == "json"));
        payloads.sort();
        let root = self.root.display().to_string();
        let slug = root.replace(['/', '.'], "-");
        let mut written = std::collections::BTreeSet::new();
        // The variables Claude Code sets for its hooks, from the first
        // SessionStart: what a hook may read besides its payload.
        let first_start = payloads.iter().find(|p| {
            p.file_name()
                .is_some_and(|n| n.to_string_lossy().ends_with("-SessionStart.json"))
        });
        if let Some(start) = first_start
            && let Ok(env) = std::fs::read_to_string(start.with_extension("env"))
        {
            let payload: serde_json::Value =
                serde_json::from_str(&std::fs::read_to_string(start).expect("payload"))
                    .expect("JSON payload");
            let mut env: std::collections::BTreeMap<String, String> =
                serde_json::from_str(&env).expect("the recorded environment");
            // The sandbox's own (CODEX_HOME) is not Claude Code's.
            env.retain(|name, _| name == "AI_AGENT" || name.starts_with("CLAUDE"));
            // Values that differ in every run: the process and secrets.
            for name in [
                "CLAUDE_PID",
                "CLAUDE_CODE_MESSAGING_TOKEN",
                "CLAUDE_CODE_MESSAGING_SOCKET",
            ] {
                if let Some(value) = env.get_mut(name) {
                    *value = format!("{{{{{name}}}}}");
                }
            }
            let session = payload["session_id"].as_str().unwrap_or("-");
            let text = serde_json::to_string_pretty(&env)
                .expect("JSON")
                .replace(session, "{{SESSION_ID}}")
                .replace(&slug, "{{PROJECT_SLUG}}")
                .replace(&root, "{{CWD}}")
                .replace(&self.home.display().to_string(), "{{HOME}}")
                .replace(&self.path().display().to_string(), "{{SCRATCH}}");
            std::fs::write(out.join("claude-hook-environment.json"), text + "\n")
                .expect("write fixture");
        }
        for payload in payloads {
            let text = std::fs::read_to_string(&payload).expect("payload");
            let value: serde_json::Value = serde_json::from_str(&text).expect("JSON payload");
            let event = value["hook_event_name"].as_str().unwrap_or("unknown");
            let detail = value["tool_name"]
                .as_str()
                .or(value["source"].as_str())
                .or(value["agent_type"].as_str().filter(|t| !t.is_empty()))
                .map(|d| format!("-{d}"))
                .unwrap_or_default();
            let internal = value["agent_type"] == "" && value.get("agent_id").is_some();
            let who = match (
                value.get("agent_id").is_some(),
                value["tool_name"].is_string(),
            ) {
                (true, true) => "-subagent",
                _ if internal => "-internal-agent",
                _ => "",
            };
            let name = format!("claude-{event}{detail}{who}.json");
            if !written.insert(name.clone()) {
                continue;
            }
            let normalized = text
                .replace(&slug, "{{PROJECT_SLUG}}")
                .replace(&root, "{{CWD}}")
                .replace(&self.home.display().to_string(), "{{HOME}}")
                .replace(&self.path().display().to_string(), "{{SCRATCH}}");
            let pretty = serde_json::from_str::<serde_json::Value>(&normalized)
                .and_then(|v| serde_json::to_string_pretty(&v))
                .expect("still JSON");
            std::fs::write(out.join(name), pretty + "\n").expect("write fixture");
        }
        written.len()
    }
}

impl Sandbox {
    /// Adds `e2e-record-hook <sandbox>/codex-hooks` for every event to
    /// `$CODEX_HOME/hooks.json`, and records its trust the way Codex checks
    /// it, so the recorder runs without `--dangerously-bypass-hook-trust`.
    pub fn record_codex_hooks(&self) {
        let recorder = e2e_bin("e2e-record-hook");
        let command = format!(
            "'{}' '{}'",
            recorder.display(),
            self.path().join("codex-hooks").display()
        );
        let hooks_json = self.codex_home().join("hooks.json");
        let mut hooks = serde_json::Map::new();
        let mut trust = String::new();
        for (event, matcher) in [
            ("SessionStart", None),
            ("SubagentStart", None),
            ("PreToolUse", Some("*")),
            ("PostToolUse", Some("*")),
            ("SubagentStop", None),
            ("Stop", None),
        ] {
            let mut group = serde_json::json!({"hooks": [{"type": "command", "command": command}]});
            if let Some(matcher) = matcher {
                group["matcher"] = matcher.into();
            }
            hooks.insert(event.to_owned(), serde_json::json!([group]));
            let snake = agentctx_install::codex_trust_entries(
                &hooks_json,
                &serde_json::json!({"hooks": {event: [{"matcher": matcher, "hooks": [{"type": "command", "command": "agentctx hook"}]}]}}).to_string(),
            );
            let key = snake
                .first()
                .map(|(k, _)| k.clone())
                .expect("a key for the event");
            let hash = agentctx_install::codex_trust_hash(event, matcher, &command);
            trust.push_str(&format!(
                "\n[hooks.state.{key:?}]\ntrusted_hash = {hash:?}\n"
            ));
        }
        std::fs::create_dir_all(self.codex_home()).expect("codex home");
        std::fs::write(&hooks_json, serde_json::json!({"hooks": hooks}).to_string())
            .expect("hooks.json");
        let config = self.codex_home().join("config.toml");
        let mut text = std::fs::read_to_string(&config).unwrap_or_default();
        text.push_str(&trust);
        std::fs::write(config, text).expect("config.toml");
    }

    /// With `AGENTCTX_E2E_RECORD` set, copies the Codex hook payloads the
    /// recorder saved to `fixtures/agents/codex-<version>/`, the first of
    /// each kind (`hook-<event>[-<tool>].json`, kebab-case), with this
    /// sandbox's paths replaced by `{{SCRATCH}}`. Returns how many it wrote.
    pub fn record_codex_fixtures(&self) -> usize {
        if std::env::var_os("AGENTCTX_E2E_RECORD").is_none() {
            return 0;
        }
        let version = std::env::var("AGENTCTX_E2E_CODEX_VERSION")
            .expect("scripts/e2e sets AGENTCTX_E2E_CODEX_VERSION");
        let out = workspace_root().join(format!("fixtures/agents/codex-{version}"));
        std::fs::create_dir_all(&out).expect("fixtures folder");
        let mut payloads: Vec<PathBuf> = std::fs::read_dir(self.path().join("codex-hooks"))
            .map(|dir| dir.flatten().map(|e| e.path()).collect())
            .unwrap_or_default();
        payloads.retain(|p| p.extension().is_some_and(|e| e == "json"));
        payloads.sort();
        let kebab = |name: &str| {
            let mut out = String::new();
            for (i, c) in name.chars().enumerate() {
                if c.is_ascii_uppercase() && i > 0 {
                    out.push('-');
                }
                out.push(if c == '_' {
                    '-'
                } else {
                    c.to_ascii_lowercase()
                });
            }
            out
        };
        let mut written = std::collections::BTreeSet::new();
        for payload in payloads {
            let text = std::fs::read_to_string(&payload).expect("payload");
            let value: serde_json::Value = serde_json::from_str(&text).expect("JSON payload");
            let event = kebab(value["hook_event_name"].as_str().unwrap_or("unknown"));
            let tool = value["tool_name"]
                .as_str()
                .map(|t| format!("-{}", kebab(t)))
                .unwrap_or_default();
            let who = if value.get("agent_id").is_some() && value["tool_name"].is_string() {
                "-subagent"
            } else {
                ""
            };
            let name = format!("hook-{event}{tool}{who}.json");
            if !written.insert(name.clone()) {
                continue;
            }
            let normalized = text.replace(&self.path().display().to_string(), "{{SCRATCH}}");
            let pretty = serde_json::from_str::<serde_json::Value>(&normalized)
                .and_then(|v| serde_json::to_string_pretty(&v))
                .expect("still JSON");
            std::fs::write(out.join(name), pretty + "\n").expect("write fixture");
        }
        written.len()
    }
}
