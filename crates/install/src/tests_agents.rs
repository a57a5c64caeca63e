//! Install and uninstall for Gemini CLI, Copilot CLI, opencode and Qwen Code.

use serde_json::{Value, json};

use super::tests::request;
use super::*;

fn places() -> (tempfile::TempDir, Places) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("repo");
    let home = dir.path().join("home");
    std::fs::create_dir_all(&root).unwrap();
    std::fs::create_dir_all(&home).unwrap();
    let env = agentctx_config::Environment::from_pairs([
        ("HOME", home.to_str().unwrap()),
        ("XDG_CONFIG_HOME", dir.path().join("xdg").to_str().unwrap()),
    ]);
    let places = Places {
        root,
        claude_user_settings: None,
        mcp_configs: McpConfigs::from_env(&env),
        codex_home: None,
        home: Some(home),
        manifests: dir.path().join("state/installs"),
    };
    (dir, places)
}

fn run(r: &Request, p: &Places, adding: bool) -> Vec<FileChange> {
    let changes = if adding {
        plan_install(r, p).unwrap()
    } else {
        plan_uninstall(r, p).unwrap()
    };
    apply(&changes, p).unwrap();
    changes
}

fn read_json(path: &std::path::Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[test]
fn gemini_gets_its_hooks_and_context_file_name_and_uninstall_restores_every_byte() {
    let (_dir, p) = places();
    let settings = p.home.as_ref().unwrap().join(".gemini/settings.json");
    std::fs::create_dir_all(settings.parent().unwrap()).unwrap();
    let mine = "{\n  \"ui\": {\"theme\": \"GitHub\"}\n}\n";
    std::fs::write(&settings, mine).unwrap();
    let r = request(Agent::Gemini, Scope::User);
    run(&r, &p, true);
    assert!(
        run(&r, &p, true).iter().all(FileChange::is_unchanged),
        "twice is once"
    );
    let json = read_json(&settings);
    assert_eq!(
        json["context"]["fileName"],
        json!(["AGENTS.md", "GEMINI.md"])
    );
    let before = &json["hooks"]["BeforeTool"][0];
    assert_eq!(before["matcher"], "*");
    let command = before["hooks"][0]["command"].as_str().unwrap();
    assert!(
        command.starts_with("'/opt/agentctx/bin/agentctx' hook --agent gemini"),
        "{command}"
    );
    assert!(
        command.ends_with("exit 2; }"),
        "the missing-program guard: {command}"
    );
    assert_eq!(before["hooks"][0]["timeout"], 30_000);
    for event in ["SessionStart", "BeforeAgent", "AfterTool", "AfterAgent"] {
        assert!(json["hooks"][event].is_array(), "{event}");
    }
    run(&r, &p, false);
    assert_eq!(std::fs::read_to_string(&settings).unwrap(), mine);
}

#[test]
fn a_context_file_name_that_named_agents_md_before_install_stays_after_uninstall() {
    let (_dir, p) = places();
    let settings = p.home.as_ref().unwrap().join(".gemini/settings.json");
    std::fs::create_dir_all(settings.parent().unwrap()).unwrap();
    std::fs::write(
        &settings,
        r#"{"context": {"fileName": ["AGENTS.md", "X.md"]}}"#,
    )
    .unwrap();
    let r = request(Agent::Gemini, Scope::User);
    run(&r, &p, true);
    // Edited since: uninstall takes out only what install added.
    let mut json = read_json(&settings);
    json["ui"] = json!({"theme": "x"});
    std::fs::write(&settings, json.to_string()).unwrap();
    run(&r, &p, false);
    let json = read_json(&settings);
    assert_eq!(json["context"]["fileName"], json!(["AGENTS.md", "X.md"]));
    assert!(json.get("hooks").is_none());
}

#[test]
fn copilot_hooks_are_flat_with_bash_and_the_camel_case_events_are_named() {
    let (_dir, p) = places();
    let r = request(Agent::Copilot, Scope::User);
    run(&r, &p, true);
    let settings = p.home.as_ref().unwrap().join(".copilot/settings.json");
    let json = read_json(&settings);
    let start = &json["hooks"]["sessionStart"][0];
    assert_eq!(start["type"], "command");
    assert_eq!(start["timeoutSec"], 30);
    assert!(
        start["bash"]
            .as_str()
            .unwrap()
            .ends_with("--event sessionStart"),
        "{start}"
    );
    let pre = json["hooks"]["PreToolUse"][0]["bash"].as_str().unwrap();
    assert!(
        pre.contains("--agent copilot") && pre.ends_with("exit 2; }"),
        "{pre}"
    );
    run(&r, &p, false);
    assert!(!settings.exists());

    // A project install: a file of agentctx's own, removed whole.
    let r = request(Agent::Copilot, Scope::Project);
    run(&r, &p, true);
    let file = p.root.join(".github/hooks/agentctx.json");
    assert_eq!(read_json(&file)["version"], 1);
    run(&r, &p, false);
    assert!(!p.root.join(".github").exists());
}

#[test]
fn the_opencode_plugin_names_the_program_and_goes_away() {
    let (dir, p) = places();
    let r = request(Agent::Opencode, Scope::User);
    run(&r, &p, true);
    let plugin = dir.path().join("xdg/opencode/plugin/agentctx.js");
    let text = std::fs::read_to_string(&plugin).unwrap();
    assert!(
        text.contains(r#"const PROGRAM = "/opt/agentctx/bin/agentctx";"#),
        "{text}"
    );
    assert!(!text.contains("__AGENTCTX_PROGRAM__"));
    run(&r, &p, false);
    assert!(!plugin.exists());
    assert!(!dir.path().join("xdg/opencode").exists());
}

#[test]
fn the_opencode_shell_is_installed_beside_the_plugin_as_a_program_and_goes_away() {
    let (dir, p) = places();
    let r = request(Agent::Opencode, Scope::User);
    run(&r, &p, true);
    let shell = dir.path().join("xdg/opencode/agentctx/bash");
    let text = std::fs::read_to_string(&shell).unwrap();
    assert!(
        text.starts_with("#!/bin/sh\n# agentctx for opencode"),
        "{text}"
    );
    use std::os::unix::fs::PermissionsExt as _;
    assert_eq!(
        std::fs::metadata(&shell).unwrap().permissions().mode() & 0o777,
        0o755
    );
    let plugin =
        std::fs::read_to_string(dir.path().join("xdg/opencode/plugin/agentctx.js")).unwrap();
    assert!(
        plugin.contains(&format!("const SHELL = \"{}\";", shell.display())),
        "{plugin}"
    );
    // The project's install puts it in the project's `.opencode/`.
    let project = request(Agent::Opencode, Scope::Project);
    run(&project, &p, true);
    assert!(p.root.join(".opencode/agentctx/bash").is_file());
    run(&project, &p, false);
    assert!(!p.root.join(".opencode").exists());
    run(&r, &p, false);
    assert!(!shell.exists());
    assert!(!dir.path().join("xdg/opencode").exists());
}

#[test]
fn qwen_gets_claude_shaped_hooks() {
    let (_dir, p) = places();
    let r = request(Agent::Qwen, Scope::Project);
    run(&r, &p, true);
    let settings = p.root.join(".qwen/settings.json");
    let json = read_json(&settings);
    let pre = &json["hooks"]["PreToolUse"][0];
    assert_eq!(pre["matcher"], "*");
    assert!(
        pre["hooks"][0]["command"]
            .as_str()
            .unwrap()
            .contains("--agent qwen")
    );
    for event in [
        "SessionStart",
        "UserPromptSubmit",
        "PostToolUse",
        "SubagentStop",
        "Stop",
    ] {
        assert!(json["hooks"][event].is_array(), "{event}");
    }
    run(&r, &p, false);
    assert!(!settings.exists());
}

#[test]
fn a_project_link_to_a_file_outside_the_project_is_not_followed() {
    let (dir, p) = places();
    let victim = dir.path().join("home/.bashrc");
    std::fs::write(&victim, "export PS1=mine\n").unwrap();
    let link = p.root.join(".opencode/plugin/agentctx.js");
    std::fs::create_dir_all(link.parent().unwrap()).unwrap();
    std::os::unix::fs::symlink(&victim, &link).unwrap();
    let r = request(Agent::Opencode, Scope::Project);
    let error = plan_install(&r, &p).unwrap_err().to_string();
    assert!(
        error.contains("symbolic link") && error.contains("not following"),
        "{error}"
    );
    assert_eq!(
        std::fs::read_to_string(&victim).unwrap(),
        "export PS1=mine\n"
    );
    assert!(plan_uninstall(&r, &p).is_err());
    assert_eq!(
        std::fs::read_to_string(&victim).unwrap(),
        "export PS1=mine\n"
    );
}

#[test]
fn a_plugin_of_agentctxs_name_that_is_not_agentctxs_is_left_alone() {
    let (_dir, p) = places();
    let plugin = p.root.join(".opencode/plugin/agentctx.js");
    std::fs::create_dir_all(plugin.parent().unwrap()).unwrap();
    std::fs::write(&plugin, "export const Mine = 1;\n").unwrap();
    let r = request(Agent::Opencode, Scope::Project);
    let error = plan_install(&r, &p).unwrap_err().to_string();
    assert!(error.contains("not agentctx's"), "{error}");
    run(&r, &p, false);
    assert_eq!(
        std::fs::read_to_string(&plugin).unwrap(),
        "export const Mine = 1;\n"
    );
}

// A third attack pass (2026-11-26).

#[test]
fn an_entry_left_under_a_narrower_matcher_moves_to_one_every_call_reaches() {
    let (_dir, p) = places();
    let settings = p.home.as_ref().unwrap().join(".gemini/settings.json");
    std::fs::create_dir_all(settings.parent().unwrap()).unwrap();
    let narrow = json!({"hooks": {"BeforeTool": [{"matcher": "run_shell_command", "hooks": [
        {"type": "command", "command": "/usr/local/bin/mine"},
        {"type": "command", "command": "'/opt/old/agentctx' hook --agent gemini"},
    ]}]}});
    std::fs::write(&settings, narrow.to_string()).unwrap();
    run(&request(Agent::Gemini, Scope::User), &p, true);
    let groups = read_json(&settings)["hooks"]["BeforeTool"].clone();
    let groups = groups.as_array().unwrap();
    assert_eq!(groups.len(), 2, "{groups:?}");
    assert_eq!(groups[0]["matcher"], "run_shell_command");
    assert_eq!(
        groups[0]["hooks"].as_array().unwrap().len(),
        1,
        "theirs stays"
    );
    assert_eq!(groups[1]["matcher"], "*");
    assert!(
        groups[1]["hooks"][0]["command"]
            .as_str()
            .unwrap()
            .contains("/opt/agentctx/bin/agentctx")
    );
}

#[test]
fn a_write_that_fails_leaves_no_record_claiming_it() {
    let (dir, p) = places();
    // A file where its folder would be: the write fails.
    let blocker = dir.path().join("home/.gemini");
    std::fs::write(&blocker, "not a folder").unwrap();
    let path = blocker.join("settings.json");
    let change = FileChange {
        path: path.clone(),
        before: None,
        after: Some("{}\n".into()),
        how: ChangeKind::Installed,
        parts_after: Parts {
            hooks: true,
            context_file_name: true,
            ..Parts::default()
        },
        manifest: Some(Manifest::new(
            &path,
            None,
            Parts {
                hooks: true,
                context_file_name: true,
                ..Parts::default()
            },
            "{}\n",
        )),
    };
    assert!(apply(&[change], &p).is_err());
    assert!(Manifest::load(&p.manifests, &path).unwrap().is_none());
}
