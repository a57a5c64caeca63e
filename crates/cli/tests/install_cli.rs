//! `agentctx install` / `uninstall` as a new user meets them: scopes that
//! share a user config, modes kept, the binary's own place.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests fail loudly")]

mod common;

use std::path::{Path, PathBuf};

use common::{TestEnv, run};

const PROGRAM: [&str; 2] = ["--program", "/opt/bin/agentctx"];

/// A git project with `CODEX_HOME` under the temporary HOME.
fn project() -> (TestEnv, PathBuf) {
    let t = TestEnv::new();
    std::fs::create_dir_all(t.project.join(".git")).unwrap();
    let codex_home = t.home.join(".codex");
    (t, codex_home)
}

fn agentctx(t: &TestEnv, codex_home: &Path, args: &[&str]) -> String {
    let (code, out, err) = run(t.cmd().env("CODEX_HOME", codex_home).args(args));
    assert_eq!(code, 0, "agentctx {args:?}: {err}");
    out
}

fn holds_mcp_server(codex_home: &Path) -> bool {
    std::fs::read_to_string(codex_home.join("config.toml"))
        .is_ok_and(|text| text.contains("[mcp_servers.agentctx]"))
}

#[test]
fn a_project_uninstall_keeps_the_mcp_server_a_user_install_wrote() {
    let (t, codex_home) = project();
    let mut user_install = vec!["install", "codex", "--user", "--mcp"];
    user_install.extend(PROGRAM);
    agentctx(&t, &codex_home, &user_install);
    assert!(holds_mcp_server(&codex_home));
    let out = agentctx(&t, &codex_home, &["uninstall", "codex"]);
    assert!(
        holds_mcp_server(&codex_home),
        "the project's uninstall took the user's MCP server out: {out}"
    );
    let out = agentctx(&t, &codex_home, &["uninstall", "codex", "--user"]);
    let config = codex_home.join("config.toml");
    assert!(
        !out.contains(&format!("{}: unchanged", config.display())),
        "{out}"
    );
    assert!(!holds_mcp_server(&codex_home), "{out}");
}

#[test]
fn the_mcp_server_two_scopes_asked_for_stays_until_both_uninstall() {
    let (t, codex_home) = project();
    let mut project_install = vec!["install", "codex", "--mcp"];
    project_install.extend(PROGRAM);
    let mut user_install = vec!["install", "codex", "--user", "--mcp"];
    user_install.extend(PROGRAM);
    agentctx(&t, &codex_home, &project_install);
    agentctx(&t, &codex_home, &user_install);
    agentctx(&t, &codex_home, &["uninstall", "codex", "--user"]);
    assert!(
        holds_mcp_server(&codex_home),
        "the project's install still needs it"
    );
    assert!(
        !codex_home.join("hooks.json").exists(),
        "the user's hooks are gone"
    );
    agentctx(&t, &codex_home, &["uninstall", "codex"]);
    assert!(!holds_mcp_server(&codex_home));
    assert!(!t.project.join(".codex").exists());
}

#[test]
fn a_user_uninstall_keeps_the_loader_option_a_project_install_set() {
    let (t, codex_home) = project();
    let mut install = vec!["install", "claude", "--replace-agents-md-loader"];
    install.extend(PROGRAM);
    agentctx(&t, &codex_home, &install);
    let user_settings = t.home.join(".claude/settings.json");
    let option =
        || std::fs::read_to_string(&user_settings).is_ok_and(|s| s.contains("agents-md@builtin"));
    assert!(option());
    agentctx(&t, &codex_home, &["uninstall", "claude", "--user"]);
    assert!(option(), "the user scope never set it");
    agentctx(&t, &codex_home, &["uninstall", "claude"]);
    assert!(!option());
}

#[cfg(unix)]
fn mode(path: &Path) -> u32 {
    use std::os::unix::fs::PermissionsExt as _;
    std::fs::metadata(path).unwrap().permissions().mode() & 0o7777
}

#[cfg(unix)]
fn set_mode(path: &Path, mode: u32) {
    use std::os::unix::fs::PermissionsExt as _;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
}

/// `agentctx ARGS` under umask 077 (a careful user's), in the project.
fn agentctx_umask_077(t: &TestEnv, codex_home: &Path, args: &[&str]) -> String {
    let mut cmd = std::process::Command::new("sh");
    cmd.env_clear()
        .env("HOME", &t.home)
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("CODEX_HOME", codex_home)
        .current_dir(&t.project)
        .stdin(std::process::Stdio::null())
        .args([
            "-c",
            "umask 077 && exec \"$0\" \"$@\"",
            env!("CARGO_BIN_EXE_agentctx"),
        ])
        .args(args);
    let (code, out, err) = run(&mut cmd);
    assert_eq!(code, 0, "agentctx {args:?}: {err}");
    out
}

/// Codex's recorded SessionStart for the project, through the hook.
fn codex_session_start(t: &TestEnv, codex_home: &Path) -> String {
    let root = std::fs::canonicalize(&t.project).unwrap();
    let payload = std::fs::read_to_string(
        common::workspace_root().join("fixtures/agents/codex-0.169.0/hook-session-start.json"),
    )
    .unwrap()
    .replace("{{SCRATCH}}/repo", &root.display().to_string())
    .replace("{{SCRATCH}}", &t.dir.path().display().to_string());
    let mut cmd = t.cmd();
    cmd.env("CODEX_HOME", codex_home)
        .args(["hook", "--agent", "codex", "--explain"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped());
    let mut child = cmd.spawn().unwrap();
    std::io::Write::write_all(&mut child.stdin.take().unwrap(), payload.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    String::from_utf8(out.stdout).unwrap()
}

#[cfg(unix)]
#[test]
fn a_settings_file_keeps_its_mode_through_install_and_uninstall_whatever_the_umask() {
    let (t, codex_home) = project();
    let settings = t.write("project/.claude/settings.local.json", "{}\n");
    set_mode(&settings, 0o664);
    let mut install = vec!["install", "claude"];
    install.extend(PROGRAM);
    agentctx_umask_077(&t, &codex_home, &install);
    assert!(
        std::fs::read_to_string(&settings)
            .unwrap()
            .contains("agentctx")
    );
    assert_eq!(mode(&settings), 0o664, "install kept the mode");
    // Edited since: uninstall takes the entries out (a rewrite, not a restore).
    let edited =
        std::fs::read_to_string(&settings)
            .unwrap()
            .replacen('{', "{\n  \"model\": \"opus\",", 1);
    std::fs::write(&settings, edited).unwrap();
    let out = agentctx_umask_077(&t, &codex_home, &["uninstall", "claude"]);
    assert!(out.contains("entries removed"), "{out}");
    assert_eq!(mode(&settings), 0o664, "uninstall kept the mode");
}

#[cfg(unix)]
#[test]
fn codexs_project_config_keeps_its_mode_through_install_sessions_and_uninstall() {
    let (t, codex_home) = project();
    t.write(
        "project/.coding-agent-rules.yaml",
        "file_patterns:\n  exclude: [\"secrets/\"]\n",
    );
    let config = t.write("project/.codex/config.toml", "model = \"gpt-5.5\"\n");
    set_mode(&config, 0o644);
    let mut install = vec!["install", "codex"];
    install.extend(PROGRAM);
    agentctx_umask_077(&t, &codex_home, &install);
    assert!(
        std::fs::read_to_string(&config)
            .unwrap()
            .contains("[permissions.agentctx")
    );
    assert_eq!(mode(&config), 0o644, "install kept the mode");
    // The tree changed: the next session start writes the profile again.
    std::fs::create_dir_all(t.project.join("secrets")).unwrap();
    let explained = codex_session_start(&t, &codex_home);
    assert!(explained.contains("refreshed"), "{explained}");
    assert!(
        std::fs::read_to_string(&config)
            .unwrap()
            .contains("secrets")
    );
    assert_eq!(mode(&config), 0o644, "the session start kept the mode");
    agentctx_umask_077(&t, &codex_home, &["uninstall", "codex"]);
    assert_eq!(
        std::fs::read_to_string(&config).unwrap(),
        "model = \"gpt-5.5\"\n"
    );
    assert_eq!(mode(&config), 0o644, "uninstall kept the mode");
}

/// Root may give a file back to its owner; a rewrite must (a settings
/// file of another user's that root edits stays theirs).
#[cfg(unix)]
#[test]
fn a_file_root_rewrites_keeps_its_owner() {
    use std::os::unix::fs::MetadataExt as _;
    let (t, codex_home) = project();
    let settings = t.write("project/.claude/settings.local.json", "{}\n");
    let config = t.write("project/.codex/config.toml", "model = \"x\"\n");
    let (uid, gid) = (4242, 4343);
    if std::os::unix::fs::chown(&settings, Some(uid), Some(gid)).is_err() {
        // Only root can give a file away; as anyone else the owner of a
        // rewritten file is the process's, as it was.
        assert_ne!(
            std::fs::metadata(&t.home).unwrap().uid(),
            0,
            "root could not chown"
        );
        eprintln!("not root: the owner cannot be changed, so it is not checked");
        return;
    }
    std::os::unix::fs::chown(&config, Some(uid), Some(gid)).unwrap();
    t.write(
        "project/.coding-agent-rules.yaml",
        "file_patterns:\n  exclude: [\"secrets/\"]\n",
    );
    let mut install = vec!["install", "claude"];
    install.extend(PROGRAM);
    agentctx(&t, &codex_home, &install);
    let mut install = vec!["install", "codex"];
    install.extend(PROGRAM);
    agentctx(&t, &codex_home, &install);
    std::fs::create_dir_all(t.project.join("secrets")).unwrap();
    assert!(codex_session_start(&t, &codex_home).contains("refreshed"));
    for file in [&settings, &config] {
        let meta = std::fs::metadata(file).unwrap();
        assert_eq!((meta.uid(), meta.gid()), (uid, gid), "{}", file.display());
    }
}

/// A binary in a temporary folder (here: `TMPDIR` names the folder the
/// test's binary is in, wherever the build folder is).
fn in_temporary_folder(t: &TestEnv, args: &[&str]) -> (i32, String, String) {
    let binary = Path::new(env!("CARGO_BIN_EXE_agentctx"));
    let temp = std::fs::canonicalize(binary.parent().unwrap()).unwrap();
    run(t.cmd().env("TMPDIR", &temp).args(args))
}

#[test]
fn a_binary_in_a_temporary_folder_is_refused_with_how_to_name_another() {
    let (t, _) = project();
    let (code, _, err) = in_temporary_folder(&t, &["install", "claude"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("temporary folder"), "{err}");
    // What --program takes, and that a dry run still works.
    assert!(
        err.contains("--program PATH (an absolute path outside the temporary folder"),
        "{err}"
    );
    assert!(err.contains("--dry-run shows the changes"), "{err}");
    assert!(
        err.contains("cargo install --locked --path crates/cli"),
        "{err}"
    );
    assert!(!t.project.join(".claude").exists());
    let (_, help, _) = run(t.cmd().args(["install", "--help"]));
    assert!(help.contains("temporary folder"), "{help}");
    let (code, out, err) =
        in_temporary_folder(&t, &["install", "claude", "--program", "/opt/bin/agentctx"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("installed"), "{out}");
}

#[test]
fn a_dry_run_from_a_temporary_folder_shows_the_changes_and_writes_nothing() {
    let (t, _) = project();
    let (code, out, err) = in_temporary_folder(&t, &["install", "claude", "--dry-run"]);
    assert_eq!(code, 0, "{err}");
    let binary = std::fs::canonicalize(env!("CARGO_BIN_EXE_agentctx")).unwrap();
    assert!(
        out.contains(&format!("'{}' hook --agent claude", binary.display())),
        "{out}"
    );
    assert!(err.contains("--program PATH"), "the refusal is said: {err}");
    assert!(!t.project.join(".claude").exists(), "nothing written");
    assert!(
        !t.home.join(".local/state/agentctx/installs").exists(),
        "no record"
    );
}

#[test]
fn uninstall_says_a_file_that_is_not_there_is_not_there() {
    let (t, codex_home) = project();
    let out = agentctx(&t, &codex_home, &["uninstall", "claude"]);
    let settings = t.project.join(".claude/settings.local.json");
    assert!(
        out.contains(&format!(
            "{}: not there (nothing to remove)",
            std::fs::canonicalize(&t.project)
                .unwrap()
                .join(".claude/settings.local.json")
                .display()
        )),
        "{out}"
    );
    assert!(!out.contains("unchanged"), "{out}");
    assert!(!settings.exists());
    // A file that is there and holds nothing of agentctx's is unchanged.
    t.write("project/.claude/settings.local.json", "{}\n");
    let out = agentctx(&t, &codex_home, &["uninstall", "claude"]);
    assert!(out.contains("settings.local.json: unchanged"), "{out}");
}
