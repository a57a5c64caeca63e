//! `agentctx install` / `uninstall` as a new user meets them: scopes that
//! share a user config, modes kept, the binary's own place.

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
