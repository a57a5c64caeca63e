//! The opencode plugin package: `@agentctx/opencode`, packed by
//! `packaging/opencode/pack.sh`, installed from its tarball with npm
//! (`--ignore-scripts`, offline), named in opencode's `plugin` list, and a
//! real opencode session whose calls it hands to the `agentctx` on PATH (no
//! `agentctx install`).
//!
//! opencode installs a plugin named by its npm name itself, at start, from
//! the registry; the package is not published, so the check names the
//! installed file (`file://`), which opencode loads the same way.
//!
//! Run with `scripts/e2e`; ignored in `cargo test --workspace` because it
//! needs npm and the agent.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests fail loudly")]

use std::path::PathBuf;
use std::process::Command;

use agentctx_e2e::{
    Block, MockApi, Sandbox, Script, agentctx_bin, text_of_request, workspace_root,
};
use serde_json::{Value, json};

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

#[test]
#[ignore = "needs npm and the real opencode: scripts/e2e"]
fn the_plugin_package_guards_an_opencode_session() {
    let s = Sandbox::new();
    s.write(
        ".coding-agent-rules.yaml",
        "system_prompt_extension: \"OPENCODE-PLUGIN-EXTENSION: answer briefly.\"\nfile_patterns:\n  exclude: [\"secrets/\"]\n",
    );
    s.write("secrets/key.txt", "OPENCODE-PLUGIN-SECRET\n");
    s.write("src/main.rs", "fn main() {}\n");
    s.commit();

    let out = s.path().join("opencode-out");
    let packed = checked(
        Command::new(workspace_root().join("packaging/opencode/pack.sh"))
            .arg(env!("CARGO_PKG_VERSION"))
            .arg(&out),
    );
    let tarball = PathBuf::from(packed.trim());
    let prefix = s.path().join("plugins");
    std::fs::create_dir_all(&prefix).unwrap();
    checked(
        Command::new("npm")
            .args(["install", "--prefix"])
            .arg(&prefix)
            .args([
                "--ignore-scripts",
                "--offline",
                "--no-audit",
                "--no-fund",
                "--no-update-notifier",
                "--no-package-lock",
            ])
            .arg(&tarball)
            .env("HOME", &s.home)
            .env("npm_config_cache", s.path().join("npm-cache"))
            .env("npm_config_userconfig", "/dev/null"),
    );
    let plugin = prefix.join("node_modules/@agentctx/opencode/index.js");
    assert!(plugin.is_file());

    // agentctx on PATH: a link to the binary under test.
    let bin = s.path().join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    std::os::unix::fs::symlink(agentctx_bin(), bin.join("agentctx")).unwrap();
    let path = format!("{}:/usr/local/bin:/usr/bin:/bin", bin.display());

    let secret = s.root.join("secrets/key.txt");
    let mock = MockApi::start(Script::new().conversation(
        "E2E-MAIN:opencode-plugin",
        vec![
            vec![Block::tool("read", json!({"filePath": secret}))],
            vec![Block::text("OPENCODE-PLUGIN-DONE")],
        ],
    ));
    s.opencode_config(mock.base_url());
    let config_path = s.opencode_config_path();
    let mut config: Value =
        serde_json::from_str(&std::fs::read_to_string(&config_path).unwrap()).unwrap();
    config["plugin"] = json!([format!("file://{}", plugin.display())]);
    std::fs::write(&config_path, config.to_string()).unwrap();

    let run = s.opencode_env(
        &s.root,
        "E2E-MAIN:opencode-plugin go",
        &[("PATH", path.as_str())],
    );
    let requests = mock.conversation("E2E-MAIN:opencode-plugin");
    assert!(
        requests.len() >= 2,
        "{} requests\n{}\n{}",
        requests.len(),
        run.stdout,
        run.stderr
    );
    let first = text_of_request(&requests[0]);
    assert_eq!(first.matches("<project_files").count(), 1, "{first}");
    assert_eq!(
        first.matches("OPENCODE-PLUGIN-EXTENSION").count(),
        1,
        "{first}"
    );
    let last = text_of_request(requests.last().unwrap());
    assert!(last.contains("exclude pattern `secrets/`"), "{last}");
    for request in &requests {
        assert!(!text_of_request(request).contains("OPENCODE-PLUGIN-SECRET"));
    }
}
