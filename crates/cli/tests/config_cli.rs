//! `agentctx config` and `agentctx schema` through the binary.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests fail loudly")]

mod common;

use common::{TestEnv, run, workspace_root};

#[test]
fn config_prints_the_defaults_as_yaml() {
    let t = TestEnv::new();
    let (code, stdout, stderr) = run(t.cmd().arg("config"));
    assert_eq!(code, 0, "{stderr}");
    insta::assert_snapshot!(stdout);
}

#[test]
fn config_json_is_one_document() {
    let t = TestEnv::new();
    let (code, stdout, _) = run(t.cmd().args(["config", "--json"]));
    assert_eq!(code, 0);
    let value: serde_json::Value = serde_json::from_str(&stdout).expect("one JSON document");
    assert_eq!(value["agents"]["initial"]["maxFiles"], 16);
}

#[test]
fn config_origins_name_each_source() {
    let t = TestEnv::new();
    t.write(
        "home/.config/agentctx/config.yaml",
        "agents:\n  initial:\n    maxBytes: 4096\n",
    );
    t.write(
        "project/.agentctx.yaml",
        "file_list_context:\n  format: compact\n",
    );
    let (code, stdout, stderr) = run(t
        .cmd()
        .args([
            "config",
            "--origins",
            "--set",
            "agents.resolver.enabled=false",
        ])
        .env("CODELIA_AGENTS_ROOT", "/srv/repo"));
    assert_eq!(code, 0, "{stderr}");
    insta::assert_snapshot!(t.redact(&stdout));
}

#[test]
fn config_origins_json_names_the_env_var() {
    let t = TestEnv::new();
    let (code, stdout, _) = run(t
        .cmd()
        .args(["config", "--origins", "--json"])
        .env("CODELIA_AGENTS_MARKERS", ".git,.hg"));
    assert_eq!(code, 0);
    let entries: Vec<agentctx_types::ConfigEntry> = serde_json::from_str(&stdout).expect("entries");
    let markers = entries
        .iter()
        .find(|e| e.key == "agents.root.markers")
        .expect("markers");
    assert_eq!(markers.value, serde_json::json!([".git", ".hg"]));
    assert_eq!(
        markers.origin,
        agentctx_types::ConfigOrigin::Env {
            name: "CODELIA_AGENTS_MARKERS".into()
        }
    );
}

#[test]
fn bad_project_config_makes_every_command_exit_2_naming_key_and_line() {
    let t = TestEnv::new();
    t.write(
        "project/.agentctx.yaml",
        "# limits\nagents: {initial: {maxFiles: 0}}\n",
    );
    for args in [
        &["config"][..],
        &["config", "--origins"],
        &["schema"],
        &["schema", "config"],
    ] {
        let (code, stdout, stderr) = run(t.cmd().args(args));
        assert_eq!(code, 2, "{args:?}: {stderr}");
        assert!(stdout.is_empty(), "{args:?} printed {stdout}");
        assert!(stderr.starts_with("error: "), "{stderr}");
        assert!(
            stderr.contains(".agentctx.yaml:2:30: agents.initial.maxFiles:"),
            "{stderr}"
        );
    }
}

#[test]
fn missing_working_directory_is_exit_2() {
    let t = TestEnv::new();
    let (code, _, stderr) = run(t.cmd().args(["-C", "does/not/exist", "config"]));
    assert_eq!(code, 2);
    assert!(stderr.contains("does/not/exist"), "{stderr}");
}

#[test]
fn unknown_command_and_bad_flag_are_exit_2() {
    let t = TestEnv::new();
    assert_eq!(run(t.cmd().arg("frobnicate")).0, 2);
    assert_eq!(run(t.cmd().args(["schema", "nope"])).0, 2);
}

#[test]
fn schema_agents_config_is_strict_and_camel_case() {
    let t = TestEnv::new();
    let (code, stdout, _) = run(t.cmd().args(["schema", "agents-config"]));
    assert_eq!(code, 0);
    let schema: serde_json::Value = serde_json::from_str(&stdout).expect("json");
    assert_eq!(schema["additionalProperties"], false);
    let defs = &schema["$defs"];
    assert!(defs["RootConfig"]["properties"]["projectRootOverride"].is_object());
    assert!(defs["RootConfig"]["properties"]["stopAtFsRoot"].is_object());
    assert!(defs["InitialConfig"]["properties"]["maxFiles"].is_object());
    assert_eq!(
        defs["InitialConfig"]["properties"]["maxFiles"]["minimum"],
        1
    );
    assert!(defs["ResolverConfig"]["properties"]["maxFilesPerResolve"].is_object());
}

#[test]
fn schema_without_a_name_lists_the_names() {
    let t = TestEnv::new();
    let (_, stdout, _) = run(t.cmd().arg("schema"));
    assert_eq!(
        stdout.lines().collect::<Vec<_>>(),
        agentctx_types::SCHEMA_NAMES
    );
}

/// The schemas under docs/schema/ are what the types generate. Set
/// `AGENTCTX_BLESS=1` to rewrite them after changing a type on purpose.
#[test]
fn committed_schemas_match_the_types() {
    let t = TestEnv::new();
    let dir = workspace_root().join("docs/schema");
    let bless = std::env::var_os("AGENTCTX_BLESS").is_some();
    let mut drifted = Vec::new();
    for name in agentctx_types::SCHEMA_NAMES {
        let (code, generated, _) = run(t.cmd().args(["schema", name]));
        assert_eq!(code, 0);
        let path = dir.join(format!("{name}.json"));
        if bless {
            std::fs::write(&path, &generated).expect("write schema");
            continue;
        }
        let committed = std::fs::read_to_string(&path).unwrap_or_default();
        if committed != generated {
            drifted.push(path.display().to_string());
        }
    }
    assert!(
        drifted.is_empty(),
        "schemas drifted from the types (rerun with AGENTCTX_BLESS=1 and review the diff): {drifted:?}"
    );
}
