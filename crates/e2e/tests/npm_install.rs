//! agentctx as an npm user gets it: the tarballs `packaging/npm/pack.sh`
//! writes from the binary under test, installed offline with
//! `--ignore-scripts` into an empty prefix, `agentctx install claude` run
//! from that install, and a real Claude Code session whose hooks run the
//! npm-installed binary through the settings that install wrote.
//!
//! Run with `scripts/e2e`; in `cargo test --workspace` it is ignored
//! because it needs npm and the agent.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests fail loudly")]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use agentctx_e2e::{
    Block, MockApi, Sandbox, Script, agentctx_bin, text_of_request, workspace_root,
};
use serde_json::{Value, json};

/// The install must take less than this. The goal is 10 s (issue 39),
/// met alone on a 2-core machine with the 106 MB debug binary (5.2 to
/// 5.7 s, docs/install.md); the suite runs two tests at a time beside
/// builds, where the same install took 9.6 s, so the bound here is looser.
const INSTALL_BUDGET: Duration = Duration::from_secs(30);

/// The Rust target triple of this machine's glibc build and the npm
/// package packaging/npm/targets.tsv names for it.
fn host_target() -> (&'static str, &'static str) {
    match std::env::consts::ARCH {
        "x86_64" => ("x86_64-unknown-linux-gnu", "@agentctx/cli-linux-x64"),
        "aarch64" => ("aarch64-unknown-linux-gnu", "@agentctx/cli-linux-arm64"),
        other => panic!("no npm package for a Linux {other} machine"),
    }
}

/// Runs `cmd` and returns its stdout, failing the test with its output
/// when it does not exit 0.
fn checked(cmd: &mut Command) -> String {
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("start {cmd:?}: {e}"));
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{cmd:?}: {}\n{stdout}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}

/// The text of the tool result the model got for its first tool call.
fn first_tool_result(requests: &[Value]) -> String {
    agentctx_e2e::tool_results_text(requests[1]["messages"].as_array().unwrap())
}

#[test]
#[ignore = "needs npm and the real Claude Code: scripts/e2e"]
fn npm_tarballs_install_offline_and_their_binary_guards_a_claude_session() {
    // Outside the temporary folder: install refuses to name a binary there.
    let s = Sandbox::new_in(Path::new(env!("CARGO_TARGET_TMPDIR")));
    s.write(
        ".coding-agent-rules.yaml",
        "system_prompt_extension: \"NPM-RULES-EXTENSION: answer briefly.\"\nfile_patterns:\n  exclude: [\"secrets/\"]\n",
    );
    s.write("secrets/key.txt", "NPM-SECRET-CONTENT\n");
    s.write("src/main.rs", "fn main() {}\n");
    s.commit();

    // Packed from the binaries under test (agentctx and, beside it, the
    // sandbox's first program).
    let bins = agentctx_bin().parent().unwrap().to_path_buf();
    let out = s.path().join("npm-out");
    let version = env!("CARGO_PKG_VERSION");
    let packed = checked(
        Command::new(workspace_root().join("packaging/npm/pack.sh"))
            .args([host_target().0, bins.to_str().unwrap(), version])
            .arg(&out),
    );
    let tarballs: Vec<PathBuf> = packed.lines().map(PathBuf::from).collect();
    assert_eq!(tarballs.len(), 2, "{packed}");
    for tarball in &tarballs {
        assert!(tarball.is_file(), "{}", tarball.display());
    }

    // An empty prefix, an empty npm cache, no registry: everything comes
    // from the two tarballs, and no script runs.
    let prefix = s.path().join("prefix");
    let started = Instant::now();
    checked(
        Command::new("npm")
            .args(["install", "-g", "--prefix"])
            .arg(&prefix)
            .args([
                "--ignore-scripts",
                "--offline",
                "--no-audit",
                "--no-fund",
                "--no-update-notifier",
            ])
            .args(&tarballs)
            .env("HOME", &s.home)
            .env("npm_config_cache", s.path().join("npm-cache"))
            .env("npm_config_userconfig", "/dev/null"),
    );
    let took = started.elapsed();
    eprintln!("npm install of the local tarballs: {took:?}");
    assert!(took < INSTALL_BUDGET, "npm install took {took:?}");

    // The launcher on PATH finds the platform package's binary and passes
    // arguments, output and the exit status through.
    let launcher = prefix.join("bin/agentctx");
    let installed = prefix
        .join("lib/node_modules")
        .join(host_target().1)
        .join("bin");
    assert!(installed.join("agentctx-sandbox-init").is_file());
    let path = format!(
        "{}:/usr/local/bin:/usr/bin:/bin",
        prefix.join("bin").display()
    );
    let printed = checked(Command::new(&launcher).arg("--version").env("PATH", &path));
    assert!(printed.starts_with("agentctx "), "{printed}");
    let bad = Command::new(&launcher)
        .arg("--no-such-flag")
        .env("PATH", &path)
        .output()
        .unwrap();
    assert_eq!(
        bad.status.code(),
        Some(2),
        "usage errors exit 2 through the launcher"
    );

    // `agentctx install claude` from that install, in the project, the way a
    // user runs it: the hooks name the npm-installed binary by its path.
    let run = Command::new(&launcher)
        .args(["install", "claude"])
        .current_dir(&s.root)
        .env_clear()
        .env("HOME", &s.home)
        .env("PATH", &path)
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    // The default scope: the project's personal settings file.
    let settings = std::fs::read_to_string(s.root.join(".claude/settings.local.json")).unwrap();
    let binary = std::fs::canonicalize(installed.join("agentctx")).unwrap();
    assert!(
        settings.contains(&format!("'{}' hook --agent claude", binary.display())),
        "{settings}"
    );

    // A real session, with no agentctx on its PATH: the SessionStart
    // context reaches the model and the rules deny a Read.
    let secret = s.root.join("secrets/key.txt");
    let mock = MockApi::start(Script::new().conversation(
        "E2E-MAIN:npm",
        vec![
            vec![Block::tool("Read", json!({"file_path": secret}))],
            vec![Block::text("NPM-DONE")],
        ],
    ));
    let session = s.claude(mock.base_url(), &s.root, "E2E-MAIN:npm go", &[]);
    assert_eq!(
        session.code,
        Some(0),
        "{}\n{}",
        session.stdout,
        session.stderr
    );
    let requests = mock.conversation("E2E-MAIN:npm");
    assert!(requests.len() >= 2, "{} requests", requests.len());
    let first = text_of_request(&requests[0]);
    assert!(
        first.contains("SessionStart hook additional context: "),
        "{first}"
    );
    assert_eq!(first.matches("NPM-RULES-EXTENSION").count(), 1, "{first}");
    assert!(first.contains("<project_files"), "{first}");
    let denied = first_tool_result(&requests);
    assert!(denied.contains("exclude pattern `secrets/`"), "{denied}");
    assert!(!denied.contains("NPM-SECRET-CONTENT"), "{denied}");
}
