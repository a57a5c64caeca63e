//! Install and uninstall, file by file.

use std::path::{Path, PathBuf};

use super::*;

struct Fixture {
    _dir: tempfile::TempDir,
    places: Places,
}

fn fixture() -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("repo");
    std::fs::create_dir_all(&root).unwrap();
    let home = dir.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    let places = Places {
        root,
        claude_user_settings: Some(home.join(".claude/settings.json")),
        mcp_configs: Default::default(),
        codex_home: Some(home.join(".codex")),
        home: Some(home),
        manifests: dir.path().join("state/installs"),
    };
    Fixture { _dir: dir, places }
}

/// A request for `agent` in `scope`, naming agentctx by an absolute path.
pub(super) fn request(agent: Agent, scope: Scope) -> Request {
    Request {
        agent,
        scope,
        program: "/opt/agentctx/bin/agentctx".into(),
        agents_md_plugin_off: false,
        codex_trust: false,
        agent_version: None,
        codex_profile: None,
        mcp: false,
    }
}

fn install(r: &Request, p: &Places) -> Vec<FileChange> {
    let changes = plan_install(r, p).unwrap();
    apply(&changes, p).unwrap();
    changes
}

fn uninstall(r: &Request, p: &Places) -> Vec<FileChange> {
    let changes = plan_uninstall(r, p).unwrap();
    apply(&changes, p).unwrap();
    changes
}

#[cfg(unix)]
fn mode(path: &Path) -> u32 {
    use std::os::unix::fs::PermissionsExt as _;
    std::fs::metadata(path).unwrap().permissions().mode() & 0o7777
}

#[test]
fn a_project_install_writes_settings_local_json_and_uninstall_leaves_nothing() {
    let f = fixture();
    let r = request(Agent::Claude, Scope::Project);
    let changes = install(&r, &f.places);
    let settings = f.places.root.join(".claude/settings.local.json");
    assert_eq!(changes[0].path, settings);
    let text = std::fs::read_to_string(&settings).unwrap();
    let json: serde_json::Value = serde_json::from_str(&text).unwrap();
    for event in [
        "SessionStart",
        "SubagentStart",
        "PreToolUse",
        "PostToolUse",
        "SubagentStop",
        "Stop",
    ] {
        let command = json["hooks"][event][0]["hooks"][0]["command"]
            .as_str()
            .unwrap();
        assert!(
            command.starts_with("'/opt/agentctx/bin/agentctx' hook --agent claude"),
            "{command}"
        );
    }
    uninstall(&r, &f.places);
    assert!(!settings.exists());
    assert!(
        !f.places.root.join(".claude").exists(),
        "the folder install created is gone"
    );
    assert!(!f.places.manifests.join("x").exists());
}

#[cfg(unix)]
#[test]
fn uninstall_restores_a_hand_formatted_file_byte_for_byte_with_its_mode() {
    use std::os::unix::fs::PermissionsExt as _;
    let f = fixture();
    let settings = f.places.root.join(".claude/settings.local.json");
    std::fs::create_dir_all(settings.parent().unwrap()).unwrap();
    let original = "{\n    \"model\":   \"opus\",\n\n    \"env\": {\"A\": \"1\"}\n}";
    std::fs::write(&settings, original).unwrap();
    std::fs::set_permissions(&settings, std::fs::Permissions::from_mode(0o644)).unwrap();
    let r = request(Agent::Claude, Scope::Project);
    install(&r, &f.places);
    assert_eq!(mode(&settings), 0o644, "install keeps the mode");
    // A second install changes nothing and keeps the first record of the original.
    assert!(install(&r, &f.places).iter().all(FileChange::is_unchanged));
    let changes = uninstall(&r, &f.places);
    assert_eq!(changes[0].how, ChangeKind::Restored);
    assert_eq!(std::fs::read_to_string(&settings).unwrap(), original);
    assert_eq!(mode(&settings), 0o644);
    // Nothing left to undo.
    assert!(
        uninstall(&r, &f.places)
            .iter()
            .all(FileChange::is_unchanged)
    );
    assert!(!settings.with_extension("json.bak").exists());
}

#[test]
fn uninstall_after_the_user_edited_keeps_their_edit() {
    let f = fixture();
    let r = request(Agent::Claude, Scope::Project);
    install(&r, &f.places);
    let settings = f.places.root.join(".claude/settings.local.json");
    let mut json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&settings).unwrap()).unwrap();
    json["model"] = "sonnet".into();
    std::fs::write(&settings, serde_json::to_string_pretty(&json).unwrap()).unwrap();
    let changes = uninstall(&r, &f.places);
    assert_eq!(changes[0].how, ChangeKind::Removed);
    let after: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&settings).unwrap()).unwrap();
    assert_eq!(after, serde_json::json!({"model": "sonnet"}));
}

#[test]
fn an_earlier_agentctx_entry_is_updated_in_place_and_other_hooks_stay() {
    let f = fixture();
    let settings = f.places.root.join(".claude/settings.local.json");
    std::fs::create_dir_all(settings.parent().unwrap()).unwrap();
    std::fs::write(
        &settings,
        r#"{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"my-linter"}]},{"matcher":"*","hooks":[{"type":"command","command":"agentctx hook"}]}]}}"#,
    )
    .unwrap();
    let r = request(Agent::Claude, Scope::Project);
    install(&r, &f.places);
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&settings).unwrap()).unwrap();
    let pre = json["hooks"]["PreToolUse"].as_array().unwrap();
    assert_eq!(pre.len(), 2);
    assert_eq!(pre[0]["hooks"][0]["command"], "my-linter");
    assert!(
        pre[1]["hooks"][0]["command"]
            .as_str()
            .unwrap()
            .contains("|| {")
    );
    uninstall(&r, &f.places);
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&settings).unwrap()).unwrap();
    assert_eq!(
        json["hooks"]["PreToolUse"][0]["hooks"][0]["command"],
        "my-linter"
    );
    assert!(json["hooks"]["PreToolUse"].as_array().unwrap().len() == 1);
}

#[cfg(unix)]
#[test]
fn a_symlinked_settings_file_stays_a_symlink() {
    let f = fixture();
    let real = f.places.home.clone().unwrap().join("dotfiles/claude.json");
    std::fs::create_dir_all(real.parent().unwrap()).unwrap();
    std::fs::write(&real, "{}\n").unwrap();
    let link = f.places.claude_user_settings.clone().unwrap();
    std::fs::create_dir_all(link.parent().unwrap()).unwrap();
    std::os::unix::fs::symlink(&real, &link).unwrap();
    let r = request(Agent::Claude, Scope::User);
    install(&r, &f.places);
    assert!(
        std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert!(
        std::fs::read_to_string(&real)
            .unwrap()
            .contains("hook --agent claude")
    );
    uninstall(&r, &f.places);
    assert_eq!(std::fs::read_to_string(&real).unwrap(), "{}\n");
}

#[test]
fn the_agents_md_option_goes_to_the_user_settings_and_comes_out_again() {
    let f = fixture();
    let user = f.places.claude_user_settings.clone().unwrap();
    std::fs::create_dir_all(user.parent().unwrap()).unwrap();
    std::fs::write(&user, "{\"theme\": \"dark\"}\n").unwrap();
    let mut r = request(Agent::Claude, Scope::Project);
    r.agents_md_plugin_off = true;
    let changes = install(&r, &f.places);
    assert_eq!(changes.len(), 2);
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&user).unwrap()).unwrap();
    assert_eq!(
        json["pluginConfigs"]["agents-md@builtin"]["options"]["instructionFiles"],
        AGENTS_MD_PLUGIN_OFF
    );
    // Uninstall without the flag undoes it: the record says install set it.
    r.agents_md_plugin_off = false;
    uninstall(&r, &f.places);
    assert_eq!(
        std::fs::read_to_string(&user).unwrap(),
        "{\"theme\": \"dark\"}\n"
    );
}

#[test]
fn codex_hooks_json_is_created_and_removed_entirely() {
    let f = fixture();
    let r = request(Agent::Codex, Scope::User);
    install(&r, &f.places);
    let hooks = f.places.codex_home.clone().unwrap().join("hooks.json");
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&hooks).unwrap()).unwrap();
    assert!(
        json["hooks"]["PreToolUse"][0]["hooks"][0]["command"]
            .as_str()
            .unwrap()
            .contains("--agent codex")
    );
    uninstall(&r, &f.places);
    assert!(!hooks.exists());
}

#[test]
fn broken_settings_are_left_alone_with_a_reason() {
    let f = fixture();
    let settings = f.places.root.join(".claude/settings.local.json");
    std::fs::create_dir_all(settings.parent().unwrap()).unwrap();
    std::fs::write(&settings, "{ not json").unwrap();
    let error = plan_install(&request(Agent::Claude, Scope::Project), &f.places).unwrap_err();
    assert!(
        matches!(
            &error,
            InstallError::Invalid {
                source: SettingsError::Json(_),
                ..
            }
        ),
        "{error}"
    );
    assert!(error.to_string().contains("not valid JSON"), "{error}");
    std::fs::write(&settings, "[1]").unwrap();
    let error = plan_install(&request(Agent::Claude, Scope::Project), &f.places).unwrap_err();
    assert!(
        matches!(
            &error,
            InstallError::Invalid {
                source: SettingsError::NotAnObject,
                ..
            }
        ),
        "{error}"
    );
    assert!(error.to_string().contains("not touching it"), "{error}");
    std::fs::write(&settings, "{\"hooks\": []}").unwrap();
    let error = plan_install(&request(Agent::Claude, Scope::Project), &f.places).unwrap_err();
    assert!(
        matches!(&error, InstallError::Invalid { source: SettingsError::Shape { key, .. }, .. } if key == "hooks"),
        "{error}"
    );
    std::fs::write(&settings, [0xff, 0xfe]).unwrap();
    let error = plan_install(&request(Agent::Claude, Scope::Project), &f.places).unwrap_err();
    assert!(
        matches!(
            &error,
            InstallError::Invalid {
                source: SettingsError::NotUtf8,
                ..
            }
        ),
        "{error}"
    );
}

#[test]
fn hook_commands_are_quoted_and_guarded() {
    let pre = hook_command("/a b/it's/agentctx", Agent::Claude, "PreToolUse");
    assert!(
        pre.starts_with(r"'/a b/it'\''s/agentctx' hook --agent claude || { echo "),
        "{pre}"
    );
    assert!(pre.ends_with(">&2; exit 2; }"));
    assert_eq!(
        hook_command("/bin/agentctx", Agent::Codex, "Stop"),
        "'/bin/agentctx' hook --agent codex"
    );
    for ours in [
        pre.as_str(),
        "agentctx hook",
        "/usr/local/bin/agentctx hook --explain",
    ] {
        assert!(is_agentctx_command(ours), "{ours}");
    }
    for theirs in [
        "my-linter",
        "agentctx mem capture",
        "agentctx-other hook",
        "'unterminated",
    ] {
        assert!(!is_agentctx_command(theirs), "{theirs}");
    }
}

#[test]
fn the_program_must_be_a_binary_that_stays() {
    let dir = tempfile::tempdir().unwrap();
    let exe = dir.path().join("agentctx");
    std::fs::write(&exe, "").unwrap();
    let error = hook_program(&exe, dir.path()).unwrap_err();
    assert!(matches!(error, ProgramError::Temporary(_)), "{error}");
    assert!(error.to_string().contains("temporary folder"), "{error}");
    let error = hook_program(&PathBuf::from("/x/agentctx (deleted)"), dir.path()).unwrap_err();
    assert!(matches!(error, ProgramError::Gone(_)), "{error}");
    assert!(error.to_string().contains("no longer exists"), "{error}");
    // Replaced since it started: the path names nothing now.
    let error = hook_program(&dir.path().join("gone"), Path::new("/nonexistent-temp")).unwrap_err();
    assert!(matches!(error, ProgramError::Gone(_)), "{error}");
    let ok = hook_program(&exe, Path::new("/nonexistent-temp")).unwrap();
    assert!(ok.ends_with("/agentctx"));
}

#[test]
fn codex_trust_is_recorded_in_the_user_config_and_taken_out_again() {
    let f = fixture();
    let config = f.places.codex_home.clone().unwrap().join("config.toml");
    std::fs::create_dir_all(config.parent().unwrap()).unwrap();
    let original = "model = \"gpt-5.5\" # mine\n";
    std::fs::write(&config, original).unwrap();
    let mut r = request(Agent::Codex, Scope::Project);
    r.codex_trust = true;
    install(&r, &f.places);
    let text = std::fs::read_to_string(&config).unwrap();
    let hooks = f.places.root.join(".codex/hooks.json");
    let key = format!("[hooks.state.\"{}:pre_tool_use:0:0\"]", hooks.display());
    assert!(text.contains(&key), "{text}");
    assert_eq!(
        text.matches("trusted_hash = \"sha256:").count(),
        7,
        "one per event: {text}"
    );
    r.codex_trust = false;
    uninstall(&r, &f.places);
    assert_eq!(std::fs::read_to_string(&config).unwrap(), original);
    assert!(!hooks.exists());
}

#[test]
fn claude_code_before_2_0_44_gets_no_subagent_start() {
    let f = fixture();
    let mut r = request(Agent::Claude, Scope::Project);
    r.agent_version = agentctx_agents::parse_version("2.0.30 (Claude Code)");
    assert_eq!(r.agent_version, Some((2, 0, 30)));
    install(&r, &f.places);
    let text = std::fs::read_to_string(f.places.root.join(".claude/settings.local.json")).unwrap();
    assert!(
        !text.contains("SubagentStart") && text.contains("SubagentStop"),
        "{text}"
    );
    r.agent_version = agentctx_agents::parse_version("2.1.330 (Claude Code)");
    install(&r, &f.places);
    let text = std::fs::read_to_string(f.places.root.join(".claude/settings.local.json")).unwrap();
    assert!(text.contains("SubagentStart"), "{text}");
}

#[test]
fn a_shared_install_names_agentctx_by_path_and_a_given_program_wins() {
    assert_eq!(Scope::Shared.program(None, true).unwrap(), "agentctx");
    assert_eq!(Scope::Project.program(None, false).unwrap(), "agentctx");
    assert_eq!(
        Scope::User.program(Some("/opt/agentctx"), true).unwrap(),
        "/opt/agentctx"
    );
}

#[test]
fn places_need_a_state_directory() {
    let env = agentctx_config::Environment::from_pairs([]);
    let error = Places::from_env(&env, PathBuf::from("/p")).unwrap_err();
    assert!(matches!(error, InstallError::Unplaced(_)), "{error}");
    let env =
        agentctx_config::Environment::from_pairs([("HOME", "/h"), ("CODEX_HOME", "relative")]);
    let places = Places::from_env(&env, PathBuf::from("/p")).unwrap();
    // A relative CODEX_HOME is not trusted: the default is used.
    assert_eq!(places.codex_home, Some(PathBuf::from("/h/.codex")));
    assert_eq!(
        places.claude_user_settings,
        Some(PathBuf::from("/h/.claude/settings.json"))
    );
}

#[test]
fn codex_advice_depends_on_the_trust_recorded() {
    let mut request = Request {
        agent: Agent::Codex,
        scope: Scope::Project,
        program: "agentctx".into(),
        agents_md_plugin_off: false,
        codex_trust: false,
        agent_version: None,
        codex_profile: None,
        mcp: false,
    };
    assert!(advice(&request).unwrap().contains("Trust all and continue"));
    request.codex_trust = true;
    assert!(advice(&request).unwrap().contains("recorded as trusted"));
    request.agent = Agent::Claude;
    request.scope = Scope::User;
    assert_eq!(advice(&request), None);
}

#[test]
fn claude_advice_says_what_the_release_that_runs_reads() {
    let mut request = request(Agent::Claude, Scope::Project);
    request.agent_version = Some((2, 1, 330));
    assert!(
        advice(&request)
            .unwrap()
            .contains("anywhere in the project")
    );
    for old in [(1, 0, 128), (2, 0, 30), (2, 1, 40), (2, 1, 210)] {
        request.agent_version = Some(old);
        let text = advice(&request).unwrap();
        assert!(!text.contains("anywhere in the project"), "{text}");
        assert!(
            text.contains("only from the directory a session starts in"),
            "{text}"
        );
        assert!(text.contains("--user"), "{text}");
    }
    request.agent_version = None;
    let text = advice(&request).unwrap();
    assert!(text.contains("2.1.211 and later"), "{text}");
    request.scope = Scope::Shared;
    request.agent_version = Some((2, 0, 30));
    assert!(
        advice(&request)
            .unwrap()
            .contains("--user works everywhere")
    );
}

/// The recording of Codex 0.169.0's TUI trusting agentctx's hooks
/// (fixtures/agents/codex-0.169.0/tui-trust/), with its placeholders
/// filled in for `scratch`.
fn recorded_tui_trust(scope: &str, file: &str, scratch: &Path) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures/agents/codex-0.169.0/tui-trust")
        .join(scope)
        .join(file);
    std::fs::read_to_string(path)
        .unwrap()
        .replace("{{SCRATCH}}", scratch.to_str().unwrap())
        .replace("{{AGENTCTX}}", RECORDED_PROGRAM)
        .replace("{{PORT}}", "18765")
}

/// The program the recording's hook commands name (the hashes depend on it).
const RECORDED_PROGRAM: &str = "/work/main/target/debug/agentctx";

#[test]
fn uninstall_after_trusting_in_codex_tui_removes_that_trust_and_keeps_the_rest() {
    for (scope, name) in [(Scope::Project, "project"), (Scope::User, "user")] {
        let dir = tempfile::tempdir().unwrap();
        let scratch = std::fs::canonicalize(dir.path()).unwrap();
        let places = Places {
            root: scratch.join("repo"),
            claude_user_settings: Some(scratch.join("home/.claude/settings.json")),
            mcp_configs: Default::default(),
            codex_home: Some(scratch.join("codex-home")),
            home: Some(scratch.join("home")),
            manifests: scratch.join("state/installs"),
        };
        std::fs::create_dir_all(&places.root).unwrap();
        let config = scratch.join("codex-home/config.toml");
        std::fs::create_dir_all(config.parent().unwrap()).unwrap();
        std::fs::write(
            &config,
            recorded_tui_trust(name, "config.before.toml", &scratch),
        )
        .unwrap();
        // Install without --trust writes what the TUI was shown.
        let mut r = request(Agent::Codex, scope);
        r.program = RECORDED_PROGRAM.into();
        install(&r, &places);
        let hooks = match scope {
            Scope::User => scratch.join("codex-home/hooks.json"),
            _ => places.root.join(".codex/hooks.json"),
        };
        // The recording predates the UserPromptSubmit entry: every
        // recorded entry is written as the TUI reviewed it, plus that one.
        let mut written: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&hooks).unwrap()).unwrap();
        let added = written["hooks"]
            .as_object_mut()
            .unwrap()
            .remove("UserPromptSubmit");
        assert!(added.is_some(), "{name}: {written}");
        assert_eq!(
            written,
            serde_json::from_str::<serde_json::Value>(&recorded_tui_trust(
                name,
                "hooks.json",
                &scratch
            ))
            .unwrap(),
            "{name}: install writes what the TUI reviewed"
        );
        // The user trusts the hooks in Codex's TUI: its file, as it wrote it.
        let trusted = recorded_tui_trust(name, "config.after.toml", &scratch);
        std::fs::write(&config, &trusted).unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt as _;
            std::fs::set_permissions(&config, std::fs::Permissions::from_mode(0o600)).unwrap();
        }
        let changes = uninstall(&r, &places);
        assert!(!hooks.exists(), "{name}: {changes:?}");
        // Everything but the trust of agentctx's hooks stays, byte for
        // byte (the TUI's own `[tui]` table too).
        let cut = trusted.find("\n\n[hooks.state]").unwrap();
        assert_eq!(
            std::fs::read_to_string(&config).unwrap(),
            trusted[..=cut],
            "{name}"
        );
        #[cfg(unix)]
        assert_eq!(mode(&config), 0o600, "{name}");
        // Uninstalling again finds nothing to do and does not fail.
        let again = plan_uninstall(&r, &places).unwrap();
        assert!(
            again.iter().all(FileChange::is_unchanged),
            "{name}: {again:?}"
        );
    }
}

#[test]
fn uninstall_never_stops_at_a_file_that_needs_nothing() {
    let f = fixture();
    let codex = f.places.codex_home.clone().unwrap();
    std::fs::create_dir_all(&codex).unwrap();
    // The issue's reproduction: a one-line user config, no install record.
    std::fs::write(codex.join("config.toml"), "model = \"gpt-5.5\"\n").unwrap();
    let r = request(Agent::Codex, Scope::Project);
    install(&r, &f.places);
    let hooks = f.places.root.join(".codex/hooks.json");
    assert!(hooks.exists());
    uninstall(&r, &f.places);
    assert!(!hooks.exists());
    assert_eq!(
        std::fs::read_to_string(codex.join("config.toml")).unwrap(),
        "model = \"gpt-5.5\"\n"
    );
    // A config that is not even TOML, or user settings that are not JSON,
    // holding nothing of agentctx's, are left as they are.
    std::fs::write(codex.join("config.toml"), "model = \n").unwrap();
    install(&r, &f.places);
    uninstall(&r, &f.places);
    assert!(!hooks.exists());
    assert_eq!(
        std::fs::read_to_string(codex.join("config.toml")).unwrap(),
        "model = \n"
    );
    let user = f.places.claude_user_settings.clone().unwrap();
    std::fs::create_dir_all(user.parent().unwrap()).unwrap();
    std::fs::write(&user, "// my settings\n{}\n").unwrap();
    let c = request(Agent::Claude, Scope::Project);
    install(&c, &f.places);
    uninstall(&c, &f.places);
    assert!(!f.places.root.join(".claude/settings.local.json").exists());
    assert_eq!(
        std::fs::read_to_string(&user).unwrap(),
        "// my settings\n{}\n"
    );
}

#[test]
fn claude_entries_carry_a_timeout_and_codex_entries_keep_their_trusted_shape() {
    let f = fixture();
    install(&request(Agent::Claude, Scope::Project), &f.places);
    let settings: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(f.places.root.join(".claude/settings.local.json")).unwrap(),
    )
    .unwrap();
    for event in ["SessionStart", "PreToolUse", "PostToolUse", "Stop"] {
        assert_eq!(
            settings["hooks"][event][0]["hooks"][0]["timeout"], 30,
            "{event}"
        );
    }
    install(&request(Agent::Codex, Scope::User), &f.places);
    let hooks: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(f.places.codex_home.clone().unwrap().join("hooks.json")).unwrap(),
    )
    .unwrap();
    assert!(
        hooks["hooks"]["PreToolUse"][0]["hooks"][0]
            .get("timeout")
            .is_none()
    );
}

#[test]
fn a_codex_project_install_with_its_permission_profile_leaves_nothing_behind() {
    let f = fixture();
    let mut r = request(Agent::Codex, Scope::Project);
    r.codex_profile = Some(vec![
        ("", ":root".to_owned(), "read"),
        ("workspace", "secrets".to_owned(), "none"),
    ]);
    install(&r, &f.places);
    let config = f.places.root.join(".codex/config.toml");
    let text = std::fs::read_to_string(&config).unwrap();
    assert!(
        text.contains("default_permissions = \"agentctx\""),
        "{text}"
    );
    assert!(text.contains("secrets = \"none\""), "{text}");
    r.codex_profile = None;
    uninstall(&r, &f.places);
    assert!(!f.places.root.join(".codex").exists());
}

#[test]
fn every_message_that_says_to_install_agentctx_says_locked() {
    // Without --locked, cargo install ignores Cargo.lock and builds newer
    // crates than the ones tested.
    let gone = ProgramError::Gone(PathBuf::from("/x/agentctx")).to_string();
    let temporary = ProgramError::Temporary(PathBuf::from("/tmp/agentctx")).to_string();
    for message in [gone, temporary] {
        assert!(
            message.contains("cargo install --locked --path crates/cli"),
            "{message}"
        );
    }
}
