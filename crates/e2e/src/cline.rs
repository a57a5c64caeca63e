//! Cline CLI against the mock's Chat Completions API, offline and
//! headless: its provider set with `cline auth` (an OpenAI-compatible one
//! on the mock's URL), its sessions in the CLI process (no hub daemon that
//! would outlive the test), no update check. `scripts/e2e` installs it
//! under `<agents>/cline/` (docs/integrations/cline-cli.md).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::sandbox::{AgentRun, Sandbox, agents_dir, run};

/// The Cline CLI `scripts/e2e` installed. Panics with what to run when it
/// is missing.
pub fn cline_bin() -> PathBuf {
    let bin = agents_dir().join("cline/node_modules/.bin/cline");
    assert!(
        bin.exists(),
        "cline is not installed at {}: run scripts/e2e (it installs the pinned version from npm)",
        bin.display()
    );
    bin
}

impl Sandbox {
    /// A `cline` command with this sandbox's HOME, headless and offline.
    fn cline_command(&self) -> Command {
        let mut cmd = Command::new(cline_bin());
        self.base_env(&mut cmd);
        cmd.env("CLINE_NO_AUTO_UPDATE", "1")
            // Sessions in the CLI process: no detached hub daemon.
            .env("CLINE_SESSION_BACKEND_MODE", "local")
            .stdin(Stdio::null());
        cmd
    }

    /// `cline auth`: the mock as an OpenAI-compatible provider, its model
    /// `mock-model` (a name without `gpt` or `codex`, so Cline gives the
    /// model its `editor` tool). Writes `~/.cline/data/settings/`.
    pub fn cline_auth(&self, mock_url: &str) {
        self.cline_auth_model(mock_url, "mock-model");
    }

    /// [`Sandbox::cline_auth`] with another model id: one holding `gpt`
    /// or `codex` gets `apply_patch` instead of `editor`.
    pub fn cline_auth_model(&self, mock_url: &str, model: &str) {
        let mut cmd = self.cline_command();
        cmd.args([
            "auth",
            "-p",
            "openai",
            "-k",
            "sk-e2e-mock",
            "-m",
            model,
            "-b",
        ])
        .arg(format!("{mock_url}/v1"))
        .current_dir(&self.home);
        let out = run(cmd);
        assert_eq!(
            out.code,
            Some(0),
            "cline auth\n{}\n{}",
            out.stdout,
            out.stderr
        );
    }

    /// `cline --json --auto-approve true -c CWD PROMPT` in `cwd`: JSON
    /// lines, every tool approved (Cline's default; without it, `--json`
    /// refuses every tool).
    pub fn cline(&self, cwd: &Path, prompt: &str) -> AgentRun {
        let mut cmd = self.cline_command();
        cmd.args(["--json", "--auto-approve", "true", "-c"])
            .arg(cwd)
            .arg(prompt)
            .current_dir(cwd);
        self.launch(cmd)
    }
}
