//! The agents beyond Claude Code and Codex: opencode, GitHub Copilot CLI
//! and Qwen Code against the mock's Chat Completions API, Gemini CLI
//! against its `streamGenerateContent`, all offline (the recipes of
//! `shared/agents/OTHER-AGENTS.md`, checked here by running them).
//! `scripts/e2e` installs them under `<agents>/other/`.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::sandbox::{AgentRun, Sandbox, agents_dir};

/// A CLI `scripts/e2e` installed under `<agents>/other/` (`opencode`,
/// `copilot`). Panics with what to run when it is missing.
fn other_bin(name: &str) -> PathBuf {
    let bin = agents_dir().join("other/node_modules/.bin").join(name);
    assert!(
        bin.exists(),
        "{name} is not installed at {}: run scripts/e2e (it installs the pinned version from npm)",
        bin.display()
    );
    bin
}

/// The opencode CLI `scripts/e2e` installed.
pub fn opencode_bin() -> PathBuf {
    other_bin("opencode")
}

/// The GitHub Copilot CLI `scripts/e2e` installed.
pub fn copilot_bin() -> PathBuf {
    other_bin("copilot")
}

/// The Gemini CLI `scripts/e2e` installed.
pub fn gemini_bin() -> PathBuf {
    other_bin("gemini")
}

/// The Qwen Code CLI `scripts/e2e` installed.
pub fn qwen_bin() -> PathBuf {
    other_bin("qwen")
}

/// Writes `value` as pretty JSON to `path`, making its folder.
fn write_json(path: &Path, value: &serde_json::Value) {
    std::fs::create_dir_all(path.parent().expect("a parent")).expect("config folder");
    let text = serde_json::to_string_pretty(value).expect("json");
    std::fs::write(path, text + "\n").expect("write the config");
}

impl Sandbox {
    /// opencode's user config file (`~/.config/opencode/opencode.json`).
    pub fn opencode_config_path(&self) -> PathBuf {
        self.home.join(".config/opencode/opencode.json")
    }

    /// Writes opencode's user config for the mock: an OpenAI-compatible
    /// provider `mock` on the mock's URL, `mock/mock-model` as the model
    /// and the small model, no autoupdate, no sharing. Replaces the file.
    pub fn opencode_config(&self, mock_url: &str) {
        let config = serde_json::json!({
            "$schema": "https://opencode.ai/config.json",
            "provider": {"mock": {
                "npm": "@ai-sdk/openai-compatible",
                "name": "mock",
                "options": {"baseURL": format!("{mock_url}/v1"), "apiKey": "sk-e2e-mock"},
                "models": {"mock-model": {
                    "name": "mock-model", "tool_call": true,
                    "limit": {"context": 200_000, "output": 8192},
                }},
            }},
            "model": "mock/mock-model",
            "small_model": "mock/mock-model",
            "autoupdate": false,
            "share": "disabled",
        });
        write_json(&self.opencode_config_path(), &config);
    }

    /// `opencode run --format json PROMPT` in `cwd` (its config from
    /// [`Sandbox::opencode_config`]), permissions auto-approved.
    pub fn opencode(&self, cwd: &Path, prompt: &str) -> AgentRun {
        self.opencode_env(cwd, prompt, &[])
    }

    /// [`Sandbox::opencode`] with more environment variables (a `PATH`
    /// with agentctx on it, for a plugin that names it by that name).
    pub fn opencode_env(&self, cwd: &Path, prompt: &str, env: &[(&str, &str)]) -> AgentRun {
        let mut cmd = Command::new(opencode_bin());
        self.base_env(&mut cmd);
        cmd.envs(env.iter().copied());
        cmd.env("OPENCODE_DISABLE_MODELS_FETCH", "1")
            .env("OPENCODE_DISABLE_AUTOUPDATE", "1")
            .env("OPENCODE_DISABLE_LSP_DOWNLOAD", "1")
            .args(["run", "--print-logs", "--format", "json", "--auto", prompt])
            .current_dir(cwd)
            .stdin(Stdio::null());
        self.launch(cmd)
    }

    /// `copilot -p PROMPT` in `cwd`, offline, against the mock's Chat
    /// Completions API with `claude-sonnet-4.5` as the model name (it picks
    /// the `view`/`create`/`edit` tool set), every tool allowed, the
    /// folder trusted, JSON output, plus `extra`.
    pub fn copilot(&self, mock_url: &str, cwd: &Path, prompt: &str, extra: &[&str]) -> AgentRun {
        let mut cmd = Command::new(copilot_bin());
        self.base_env(&mut cmd);
        cmd.env("COPILOT_OFFLINE", "true")
            .env("COPILOT_PROVIDER_BASE_URL", format!("{mock_url}/v1"))
            .env("COPILOT_PROVIDER_API_KEY", "sk-e2e-mock")
            .env("COPILOT_MODEL", "claude-sonnet-4.5")
            .env("COPILOT_AUTO_UPDATE", "false")
            .args(["-p", prompt, "--allow-all", "--trust-folder"])
            .args([
                "--no-auto-update",
                "--disable-client-telemetry",
                "--output-format",
                "json",
            ])
            .args(extra)
            .current_dir(cwd)
            .stdin(Stdio::null());
        self.launch(cmd)
    }

    /// Writes Gemini CLI's user settings (`~/.gemini/settings.json`) for
    /// the mock: API-key auth, no statistics, telemetry or updates.
    /// Replaces the file.
    pub fn gemini_settings(&self) {
        write_json(
            &self.home.join(".gemini/settings.json"),
            &serde_json::json!({
                "security": {"auth": {"selectedType": "gemini-api-key"}},
                "privacy": {"usageStatisticsEnabled": false},
                "telemetry": {"enabled": false},
                "general": {"enableAutoUpdate": false, "enableAutoUpdateNotification": false},
            }),
        );
    }

    /// `gemini -p PROMPT` in `cwd` against the mock (its settings from
    /// [`Sandbox::gemini_settings`]), the folder trusted, yolo, stream-json.
    pub fn gemini(&self, mock_url: &str, cwd: &Path, prompt: &str) -> AgentRun {
        self.gemini_env(mock_url, cwd, prompt, &[])
    }

    /// [`Sandbox::gemini`] with more environment variables (`SHLVL=1`: a
    /// CLI started from a terminal's shell).
    pub fn gemini_env(
        &self,
        mock_url: &str,
        cwd: &Path,
        prompt: &str,
        env: &[(&str, &str)],
    ) -> AgentRun {
        let mut cmd = Command::new(gemini_bin());
        self.base_env(&mut cmd);
        cmd.envs(env.iter().copied());
        cmd.env("GEMINI_API_KEY", "e2e-mock")
            .env("GOOGLE_GEMINI_BASE_URL", mock_url)
            .env("GEMINI_CLI_TRUST_WORKSPACE", "true")
            .args([
                "-p",
                prompt,
                "-m",
                "gemini-2.5-pro",
                "--approval-mode",
                "yolo",
            ])
            .args(["--output-format", "stream-json"])
            .current_dir(cwd)
            .stdin(Stdio::null());
        self.launch(cmd)
    }

    /// Writes Qwen Code's user settings (`~/.qwen/settings.json`): the
    /// OpenAI-compatible auth. Replaces the file.
    pub fn qwen_settings(&self) {
        write_json(
            &self.home.join(".qwen/settings.json"),
            &serde_json::json!({"security": {"auth": {"selectedType": "openai"}}}),
        );
    }

    /// `qwen -p PROMPT` in `cwd` against the mock's Chat Completions API
    /// (its settings from [`Sandbox::qwen_settings`]), yolo, JSON output.
    pub fn qwen(&self, mock_url: &str, cwd: &Path, prompt: &str) -> AgentRun {
        self.qwen_env(mock_url, cwd, prompt, &[])
    }

    /// [`Sandbox::qwen`] with more environment variables.
    pub fn qwen_env(
        &self,
        mock_url: &str,
        cwd: &Path,
        prompt: &str,
        env: &[(&str, &str)],
    ) -> AgentRun {
        let mut cmd = Command::new(qwen_bin());
        self.base_env(&mut cmd);
        cmd.envs(env.iter().copied());
        cmd.env("OPENAI_BASE_URL", format!("{mock_url}/v1"))
            .env("OPENAI_API_KEY", "sk-e2e-mock")
            .env("OPENAI_MODEL", "mock-model")
            .args([
                "-p",
                prompt,
                "--approval-mode",
                "yolo",
                "--output-format",
                "json",
            ])
            .current_dir(cwd)
            .stdin(Stdio::null());
        self.launch(cmd)
    }
}

impl Sandbox {
    /// With `AGENTCTX_E2E_RECORD` set: adds `e2e-record-hook` beside each
    /// of agentctx's hook entries in the agent's settings file `settings`
    /// (Gemini CLI, Qwen Code: `{"matcher", "hooks": [...]}` groups;
    /// Copilot CLI: the hooks themselves, `bash`), so the payloads the real
    /// CLI sends are kept in `<sandbox>/hooks`. It prints nothing, so it
    /// changes nothing for the agent. Returns whether it recorded.
    pub fn record_other_hooks(&self, settings: &Path) -> bool {
        if std::env::var_os("AGENTCTX_E2E_RECORD").is_none() {
            return false;
        }
        let recorder = crate::sandbox::e2e_bin("e2e-record-hook");
        let dir = self.path().join("hooks");
        let text = std::fs::read_to_string(settings).expect("installed settings");
        let mut value: serde_json::Value = serde_json::from_str(&text).expect("JSON settings");
        let hooks = value["hooks"].as_object_mut().expect("installed hooks");
        for (event, list) in hooks.iter_mut() {
            let command = format!("'{}' '{}' '{event}'", recorder.display(), dir.display());
            let list = list.as_array_mut().expect("a list");
            if list.first().is_some_and(|e| e.get("bash").is_some()) {
                list.push(serde_json::json!({"type": "command", "bash": command}));
            } else {
                list.push(serde_json::json!({"matcher": "*", "hooks": [{"type": "command", "command": command}]}));
            }
        }
        write_json(settings, &value);
        true
    }

    /// With `AGENTCTX_E2E_RECORD` set: copies the payloads
    /// [`Sandbox::record_other_hooks`] kept to `fixtures/agents/<folder>/`
    /// as `<Event>[-<tool>].json` (`{"stdin", "env"}`, the first of each
    /// kind), this sandbox's paths replaced by `{{CWD}}`, `{{REPO}}`,
    /// `{{HOME}}` and `{{SCRATCH}}` (`cwd`: the session's folder). Returns how many it wrote.
    pub fn record_other_fixtures(&self, folder: &str, cwd: &Path) -> usize {
        if std::env::var_os("AGENTCTX_E2E_RECORD").is_none() {
            return 0;
        }
        let out = crate::sandbox::workspace_root().join(format!("fixtures/agents/{folder}"));
        std::fs::create_dir_all(&out).expect("fixtures folder");
        let mut payloads: Vec<PathBuf> = std::fs::read_dir(self.path().join("hooks"))
            .map(|dir| dir.flatten().map(|e| e.path()).collect())
            .unwrap_or_default();
        payloads.retain(|p| p.extension().is_some_and(|e| e == "json"));
        payloads.sort();
        let replace = |text: &str| {
            text.replace(&cwd.display().to_string(), "{{CWD}}")
                .replace(&self.root.display().to_string(), "{{REPO}}")
                .replace(&self.home.display().to_string(), "{{HOME}}")
                .replace(&self.path().display().to_string(), "{{SCRATCH}}")
        };
        let mut written = std::collections::BTreeSet::new();
        for payload in payloads {
            let stem = payload
                .file_stem()
                .expect("a name")
                .to_string_lossy()
                .into_owned();
            let name = stem
                .split_once('-')
                .map_or(stem.as_str(), |(_, rest)| rest)
                .to_owned();
            if !written.insert(name.clone()) {
                continue;
            }
            let stdin: serde_json::Value = serde_json::from_str(&replace(
                &std::fs::read_to_string(&payload).expect("payload"),
            ))
            .expect("JSON payload");
            let mut env: serde_json::Value = std::fs::read_to_string(payload.with_extension("env"))
                .ok()
                .and_then(|t| serde_json::from_str(&replace(&t)).ok())
                .unwrap_or_default();
            // The sandbox's own, not the agent's.
            if let Some(env) = env.as_object_mut() {
                env.remove("CODEX_HOME");
            }
            write_json(
                &out.join(format!("{name}.json")),
                &serde_json::json!({"stdin": stdin, "env": env}),
            );
        }
        written.len()
    }
}
