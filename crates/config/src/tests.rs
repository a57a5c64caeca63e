//! Defaults, precedence and every error path of config loading.

use std::fs;
use std::path::{Path, PathBuf};

use agentctx_types::ConfigOrigin;

use super::*;

/// A home directory and a project below it, in a temp dir.
struct Sandbox {
    _dir: tempfile::TempDir,
    home: PathBuf,
    project: PathBuf,
}

impl Sandbox {
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().join("home");
        let project = home.join("work/project");
        fs::create_dir_all(project.join("sub/deeper")).unwrap();
        Self {
            _dir: dir,
            home,
            project,
        }
    }

    fn user_file(&self) -> PathBuf {
        self.home.join(".config/agentctx/config.yaml")
    }

    fn write(&self, path: &Path, text: &str) {
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, text).unwrap();
    }

    fn env(&self, extra: &[(&str, &str)]) -> Environment {
        let home = self.home.to_str().unwrap();
        Environment::from_pairs([("HOME", home)].into_iter().chain(extra.iter().copied()))
    }

    fn load(
        &self,
        cwd: &Path,
        extra_env: &[(&str, &str)],
        sets: &[&str],
    ) -> Result<LoadedConfig, ConfigError> {
        self.load_with(cwd, None, extra_env, sets)
    }

    fn load_with(
        &self,
        cwd: &Path,
        config_file: Option<&Path>,
        extra_env: &[(&str, &str)],
        sets: &[&str],
    ) -> Result<LoadedConfig, ConfigError> {
        let env = self.env(extra_env);
        let sets: Vec<String> = sets.iter().map(|s| (*s).to_owned()).collect();
        load(&ConfigRequest {
            cwd,
            config_file,
            sets: &sets,
            env: &env,
            project: ProjectConfig::Nearest,
        })
    }
}

fn origin_of(loaded: &LoadedConfig, key: &str) -> ConfigOrigin {
    loaded
        .entries()
        .into_iter()
        .find(|e| e.key == key)
        .unwrap_or_else(|| panic!("no entry {key}"))
        .origin
}

#[test]
fn defaults_apply_when_no_source_sets_anything() {
    let sb = Sandbox::new();
    let loaded = sb.load(&sb.project, &[], &[]).unwrap();
    assert_eq!(loaded.config, Config::default());
    assert!(loaded.files.is_empty());
    let c = &loaded.config;
    assert_eq!(c.agents.root.markers, [".codelia", ".git", ".jj"]);
    assert!(c.agents.root.stop_at_fs_root);
    assert_eq!(c.agents.initial.max_files.get(), 16);
    assert_eq!(c.agents.initial.max_bytes.get(), 262_144);
    assert_eq!(c.agents.resolver.max_files_per_resolve.get(), 8);
    assert_eq!(
        c.file_list_context.max_depth, None,
        "3, or no limit with a budget"
    );
    assert_eq!(
        c.file_list_context.max_files, None,
        "500, or no limit with a budget"
    );
    assert_eq!(c.file_list_context.cache_ttl_secs, 3600);
    assert_eq!(c.file_list_context.timeout_secs.get(), 30);
    assert_eq!(c.agentmem.retries, 2);
    assert_eq!(c.agentmem.retry_delay_ms, 200);
    assert!(c.agentmem.redact);
    assert!(
        loaded
            .entries()
            .iter()
            .all(|e| e.origin == ConfigOrigin::Default)
    );
}

#[test]
fn user_file_comes_from_home_config_without_xdg_config_home() {
    let sb = Sandbox::new();
    sb.write(&sb.user_file(), "agents: {initial: {maxFiles: 5}}\n");
    let loaded = sb.load(&sb.project, &[], &[]).unwrap();
    assert_eq!(loaded.config.agents.initial.max_files.get(), 5);
    assert!(matches!(
        origin_of(&loaded, "agents.initial.maxFiles"),
        ConfigOrigin::UserFile { .. }
    ));
}

#[test]
fn user_file_comes_from_xdg_config_home_when_set() {
    let sb = Sandbox::new();
    let xdg = sb.home.join("xdg");
    sb.write(
        &xdg.join("agentctx/config.yaml"),
        "agents: {initial: {maxFiles: 6}}\n",
    );
    sb.write(&sb.user_file(), "agents: {initial: {maxFiles: 5}}\n");
    let loaded = sb
        .load(
            &sb.project,
            &[("XDG_CONFIG_HOME", xdg.to_str().unwrap())],
            &[],
        )
        .unwrap();
    assert_eq!(loaded.config.agents.initial.max_files.get(), 6);
}

#[test]
fn nearest_project_file_above_cwd_overrides_user_file() {
    let sb = Sandbox::new();
    sb.write(
        &sb.user_file(),
        "agents: {initial: {maxFiles: 5, maxBytes: 100}}\n",
    );
    sb.write(
        &sb.project.join(PROJECT_FILE_NAME),
        "agents: {initial: {maxFiles: 7}}\n",
    );
    sb.write(
        &sb.project.join("sub").join(PROJECT_FILE_NAME),
        "agents: {initial: {maxFiles: 9}}\n",
    );
    let from_deeper = sb.load(&sb.project.join("sub/deeper"), &[], &[]).unwrap();
    assert_eq!(from_deeper.config.agents.initial.max_files.get(), 9);
    let from_root = sb.load(&sb.project, &[], &[]).unwrap();
    assert_eq!(from_root.config.agents.initial.max_files.get(), 7);
    // Keys the project file does not set keep the user file's value.
    assert_eq!(from_root.config.agents.initial.max_bytes.get(), 100);
    assert!(matches!(
        origin_of(&from_root, "agents.initial.maxBytes"),
        ConfigOrigin::UserFile { .. }
    ));
    assert!(matches!(
        origin_of(&from_root, "agents.initial.maxFiles"),
        ConfigOrigin::ProjectFile { .. }
    ));
}

#[test]
fn env_overrides_files_and_flags_override_env() {
    let sb = Sandbox::new();
    sb.write(
        &sb.project.join(PROJECT_FILE_NAME),
        "agents: {initial: {maxFiles: 7}}\n",
    );
    let env = [("CODELIA_AGENTS_INITIAL_MAX_FILES", "11")];
    let loaded = sb.load(&sb.project, &env, &[]).unwrap();
    assert_eq!(loaded.config.agents.initial.max_files.get(), 11);
    assert_eq!(
        origin_of(&loaded, "agents.initial.maxFiles"),
        ConfigOrigin::Env {
            name: "CODELIA_AGENTS_INITIAL_MAX_FILES".into()
        }
    );
    let loaded = sb
        .load(&sb.project, &env, &["agents.initial.maxFiles=12"])
        .unwrap();
    assert_eq!(loaded.config.agents.initial.max_files.get(), 12);
    assert_eq!(
        origin_of(&loaded, "agents.initial.maxFiles"),
        ConfigOrigin::Flag {
            arg: "--set agents.initial.maxFiles=12".into()
        }
    );
}

#[test]
fn every_documented_env_var_sets_its_key() {
    let sb = Sandbox::new();
    let env = [
        ("CODELIA_AGENTS_ENABLED", "false"),
        ("CODELIA_AGENTS_ROOT", "/srv/repo"),
        ("CODELIA_AGENTS_MARKERS", " .git , .hg,, "),
        ("CODELIA_AGENTS_INITIAL_MAX_FILES", "3"),
        ("CODELIA_AGENTS_INITIAL_MAX_BYTES", "4096"),
        ("CODELIA_AGENTS_RESOLVER_ENABLED", "0"),
        ("CODELIA_AGENTS_MAX_FILES_PER_RESOLVE", "2"),
        ("AGENTMEM_ROOT", "/mem"),
        ("AGENTMEM_EVENTS_PATH", "/mem/events.jsonl"),
        ("AGENTMEM_DEBUG", "1"),
        ("CODEX_SESSIONS_DIR", "/codex/sessions"),
    ];
    let c = sb.load(&sb.project, &env, &[]).unwrap().config;
    assert!(!c.agents.enabled);
    assert_eq!(
        c.agents.root.project_root_override.as_deref(),
        Some(Path::new("/srv/repo"))
    );
    assert_eq!(c.agents.root.markers, [".git", ".hg"]);
    assert_eq!(c.agents.initial.max_files.get(), 3);
    assert_eq!(c.agents.initial.max_bytes.get(), 4096);
    assert!(!c.agents.resolver.enabled);
    assert_eq!(c.agents.resolver.max_files_per_resolve.get(), 2);
    assert_eq!(c.agentmem.root.as_deref(), Some(Path::new("/mem")));
    assert_eq!(
        c.agentmem.events_path.as_deref(),
        Some(Path::new("/mem/events.jsonl"))
    );
    assert!(c.agentmem.debug);
    assert_eq!(
        c.agentmem.codex_sessions_dir.as_deref(),
        Some(Path::new("/codex/sessions"))
    );
}

#[test]
fn empty_env_value_counts_as_unset_and_sandbox_root_is_not_read() {
    let sb = Sandbox::new();
    let env = [
        ("CODELIA_AGENTS_INITIAL_MAX_FILES", ""),
        ("CODELIA_SANDBOX_ROOT", "/elsewhere"),
    ];
    let loaded = sb.load(&sb.project, &env, &[]).unwrap();
    assert_eq!(loaded.config, Config::default());
}

#[test]
fn config_flag_replaces_user_and_project_files() {
    let sb = Sandbox::new();
    sb.write(&sb.user_file(), "agents: {initial: {maxBytes: 100}}\n");
    sb.write(
        &sb.project.join(PROJECT_FILE_NAME),
        "agents: {initial: {maxFiles: 7}}\n",
    );
    let explicit = sb.home.join("explicit.yaml");
    sb.write(&explicit, "agents: {resolver: {maxFilesPerResolve: 3}}\n");
    let loaded = sb
        .load_with(&sb.project, Some(&explicit), &[], &[])
        .unwrap();
    let c = &loaded.config;
    assert_eq!(c.agents.resolver.max_files_per_resolve.get(), 3);
    assert_eq!(c.agents.initial.max_files.get(), 16);
    assert_eq!(c.agents.initial.max_bytes.get(), 262_144);
    assert_eq!(loaded.files.len(), 1);
    assert!(matches!(loaded.files[0], ConfigOrigin::ConfigFlag { .. }));
}

#[test]
fn missing_config_flag_file_is_an_error_naming_it() {
    let sb = Sandbox::new();
    let missing = sb.home.join("nope.yaml");
    let err = sb
        .load_with(&sb.project, Some(&missing), &[], &[])
        .unwrap_err();
    assert!(matches!(err, ConfigError::Read { .. }));
    assert!(err.to_string().contains("nope.yaml"), "{err}");
}

#[test]
fn empty_and_comment_only_files_set_nothing() {
    let sb = Sandbox::new();
    sb.write(&sb.user_file(), "");
    sb.write(&sb.project.join(PROJECT_FILE_NAME), "# nothing here yet\n");
    let loaded = sb.load(&sb.project, &[], &[]).unwrap();
    assert_eq!(loaded.config, Config::default());
    assert_eq!(loaded.files.len(), 2);
}

#[test]
fn null_in_project_file_unsets_a_user_file_value() {
    let sb = Sandbox::new();
    sb.write(
        &sb.user_file(),
        "agents: {root: {projectRootOverride: /srv/x}}\n",
    );
    sb.write(
        &sb.project.join(PROJECT_FILE_NAME),
        "agents: {root: {projectRootOverride: ~}}\n",
    );
    let loaded = sb.load(&sb.project, &[], &[]).unwrap();
    assert_eq!(loaded.config.agents.root.project_root_override, None);
}

#[test]
fn lists_are_replaced_not_appended() {
    let sb = Sandbox::new();
    sb.write(&sb.user_file(), "agents: {root: {markers: [.git, .hg]}}\n");
    sb.write(
        &sb.project.join(PROJECT_FILE_NAME),
        "agents: {root: {markers: [.jj]}}\n",
    );
    let loaded = sb.load(&sb.project, &[], &[]).unwrap();
    assert_eq!(loaded.config.agents.root.markers, [".jj"]);
}

fn invalid_file(text: &str) -> (u64, u64, Option<String>, String, String) {
    let sb = Sandbox::new();
    let file = sb.project.join(PROJECT_FILE_NAME);
    sb.write(&file, text);
    let err = sb.load(&sb.project, &[], &[]).unwrap_err();
    let shown = err.to_string();
    assert!(
        shown.contains(file.to_str().unwrap()),
        "error must name the file: {shown}"
    );
    match err {
        ConfigError::Invalid {
            line,
            column,
            key,
            message,
            ..
        } => (line, column, key, message, shown),
        other => panic!("expected Invalid, got {other:?}"),
    }
}

#[test]
fn zero_limit_names_key_line_and_column() {
    let (line, column, key, message, shown) = invalid_file("agents: {initial: {maxFiles: 0}}\n");
    assert_eq!((line, column), (1, 30));
    assert_eq!(key.as_deref(), Some("agents.initial.maxFiles"));
    assert!(message.contains("positive integer"), "{message}");
    assert!(
        shown.contains(":1:30: agents.initial.maxFiles: "),
        "{shown}"
    );
}

#[test]
fn negative_limit_is_rejected() {
    let (line, _, key, message, _) =
        invalid_file("agents:\n  resolver:\n    maxFilesPerResolve: -2\n");
    assert_eq!(line, 3);
    assert_eq!(key.as_deref(), Some("agents.resolver.maxFilesPerResolve"));
    assert!(message.contains("got -2"), "{message}");
}

#[test]
fn float_limit_is_rejected_even_when_whole() {
    let (_, _, key, message, _) = invalid_file("agents:\n  initial:\n    maxBytes: 3.0\n");
    assert_eq!(key.as_deref(), Some("agents.initial.maxBytes"));
    assert!(message.contains("float"), "{message}");
}

#[test]
fn string_limit_is_rejected() {
    let (_, _, key, message, _) = invalid_file("file_list_context:\n  max_files: lots\n");
    assert_eq!(key.as_deref(), Some("file_list_context.max_files"));
    assert!(message.contains("\"lots\""), "{message}");
}

#[test]
fn unknown_key_is_rejected_with_its_path() {
    let (line, column, key, message, _) = invalid_file("agents:\n  initial:\n    maxFile: 3\n");
    assert_eq!((line, column), (3, 5));
    assert_eq!(key.as_deref(), Some("agents.initial.maxFile"));
    assert!(message.contains("unknown key `maxFile`"), "{message}");
}

#[test]
fn unknown_section_is_rejected() {
    let (_, _, key, _, _) = invalid_file("agent:\n  enabled: true\n");
    assert_eq!(key.as_deref(), Some("agent"));
}

#[test]
fn wrong_type_is_rejected() {
    let (_, _, key, _, _) = invalid_file("agents:\n  root:\n    stopAtFsRoot: sometimes\n");
    assert_eq!(key.as_deref(), Some("agents.root.stopAtFsRoot"));
    let (_, _, key, _, _) = invalid_file("agents:\n  root:\n    markers: .git\n");
    assert_eq!(key.as_deref(), Some("agents.root.markers"));
}

#[test]
fn unknown_enum_value_is_rejected() {
    let (_, _, key, message, _) = invalid_file("file_list_context: {format: tre}\n");
    assert_eq!(key.as_deref(), Some("file_list_context.format"));
    assert!(message.contains("tree, flat, compact"), "{message}");
}

#[test]
fn syntax_error_has_a_position() {
    let (line, column, _, message, _) = invalid_file("agents: [\n");
    assert!(line >= 1 && column >= 1, "{line}:{column}");
    assert!(!message.is_empty());
}

#[test]
fn duplicate_key_is_rejected_and_named() {
    let (line, _, key, message, _) =
        invalid_file("agents:\n  initial:\n    maxFiles: 3\n    maxFiles: 4\n");
    assert_eq!(line, 4);
    assert_eq!(key.as_deref(), Some("agents.initial.maxFiles"));
    assert!(message.contains("duplicate key `maxFiles`"), "{message}");
}

#[test]
fn empty_section_is_rejected_with_a_hint() {
    let (_, _, key, message, _) = invalid_file("agentmem:\n");
    assert_eq!(key.as_deref(), Some("agentmem"));
    assert!(message.contains("{}"), "{message}");
}

#[test]
fn alias_bomb_is_refused_not_expanded() {
    let mut text = String::from("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
    for i in 1..10 {
        let prev = i - 1;
        text.push_str(&format!("a{i}: &a{i} [*a{prev}, *a{prev}, *a{prev}, *a{prev}, *a{prev}, *a{prev}, *a{prev}, *a{prev}, *a{prev}, *a{prev}]\n"));
    }
    let sb = Sandbox::new();
    sb.write(&sb.project.join(PROJECT_FILE_NAME), &text);
    assert!(matches!(
        sb.load(&sb.project, &[], &[]),
        Err(ConfigError::Invalid { .. })
    ));
}

#[test]
fn non_utf8_file_is_rejected() {
    let sb = Sandbox::new();
    let file = sb.project.join(PROJECT_FILE_NAME);
    fs::write(&file, b"agents: {root: {markers: [\xff]}}\n").unwrap();
    let err = sb.load(&sb.project, &[], &[]).unwrap_err();
    assert!(matches!(err, ConfigError::NotUtf8 { .. }), "{err:?}");
}

#[test]
fn unreadable_file_is_an_error_not_skipped() {
    let sb = Sandbox::new();
    // A directory where the user file should be exists but cannot be read as
    // a file (permission bits would not stop root, who runs CI).
    fs::create_dir_all(sb.user_file()).unwrap();
    let err = sb.load(&sb.project, &[], &[]).unwrap_err();
    assert!(matches!(err, ConfigError::Read { .. }), "{err:?}");
}

fn env_error(var: &str, value: &str) -> String {
    let sb = Sandbox::new();
    let err = sb.load(&sb.project, &[(var, value)], &[]).unwrap_err();
    assert!(matches!(err, ConfigError::Env { .. }), "{err:?}");
    let shown = err.to_string();
    assert!(shown.contains(var), "error must name the variable: {shown}");
    shown
}

#[test]
fn bad_env_values_name_the_variable_and_key() {
    assert!(env_error("CODELIA_AGENTS_INITIAL_MAX_FILES", "0").contains("agents.initial.maxFiles"));
    assert!(env_error("CODELIA_AGENTS_INITIAL_MAX_BYTES", "-5").contains("got -5"));
    assert!(env_error("CODELIA_AGENTS_MAX_FILES_PER_RESOLVE", "1.5").contains("float"));
    assert!(env_error("CODELIA_AGENTS_MAX_FILES_PER_RESOLVE", "many").contains("\"many\""));
    assert!(env_error("CODELIA_AGENTS_ENABLED", "maybe").contains("boolean"));
    assert!(env_error("AGENTMEM_DEBUG", "2").contains("boolean"));
}

fn flag_error(arg: &str) -> String {
    let sb = Sandbox::new();
    let err = sb.load(&sb.project, &[], &[arg]).unwrap_err();
    assert!(matches!(err, ConfigError::Flag { .. }), "{err:?}");
    err.to_string()
}

#[test]
fn bad_set_flags_are_rejected() {
    assert!(flag_error("agents.initial.maxFiles").contains("expected KEY=VALUE"));
    assert!(flag_error("agents..initial=3").contains("not a dotted key path"));
    assert!(flag_error("agents.initial.maxFile=3").contains("unknown key `maxFile`"));
    assert!(flag_error("agents.initial.maxFiles=0").contains("agents.initial.maxFiles"));
    assert!(flag_error("agents.root.markers=[").contains("agents.root.markers"));
}

#[test]
fn set_flag_values_are_yaml() {
    let sb = Sandbox::new();
    let c = sb
        .load(
            &sb.project,
            &[],
            &["agents.root.markers=[.git, .jj]", "agents.enabled=false"],
        )
        .unwrap()
        .config;
    assert_eq!(c.agents.root.markers, [".git", ".jj"]);
    assert!(!c.agents.enabled);
}

#[test]
fn an_error_elsewhere_never_drops_the_rules_policy() {
    let sandbox = Sandbox::new();
    fs::write(
        sandbox.project.join(".agentctx.yaml"),
        "project_agent_rules:\n  on_error: deny_all\n  default_rules:\n    denied_tools: [Bash]\nagentmem:\n  retries: -1\n",
    )
    .unwrap();
    let env = Environment::from_pairs([("HOME", sandbox.home.to_str().unwrap())]);
    let request = ConfigRequest::new(&sandbox.project, &env);
    assert!(load(&request).is_err());
    let (loaded, errors) = load_salvaging(&request);
    assert_eq!(errors.len(), 1);
    let rules = &loaded.config.project_agent_rules;
    assert_eq!(rules.on_error, agentctx_types::OnRuleError::DenyAll);
    assert_eq!(rules.default_rules.denied_tools, ["Bash"]);
    assert_eq!(
        loaded.config.agentmem.retries, 2,
        "the bad value is dropped, the default stays"
    );
    // A file that cannot be parsed at all but spoke of the rules: fail closed.
    fs::write(
        sandbox.project.join(".agentctx.yaml"),
        "project_agent_rules: [unclosed\n",
    )
    .unwrap();
    let (loaded, errors) = load_salvaging(&request);
    assert!(!errors.is_empty());
    assert_eq!(
        loaded.config.project_agent_rules.on_error,
        agentctx_types::OnRuleError::DenyAll
    );
}

#[test]
fn a_project_file_cannot_choose_whose_memory_is_recalled() {
    let sb = Sandbox::new();
    let rule = "agentmem:\n  identities:\n    - {match: github.com/victim/private, as: mine}\n";
    sb.write(&sb.project.join(PROJECT_FILE_NAME), rule);
    let error = sb.load(&sb.project, &[], &[]).unwrap_err();
    assert!(
        matches!(&error, ConfigError::UserOnly { key, .. } if key == "agentmem.identities"),
        "{error}"
    );
    assert!(error.to_string().contains(PROJECT_FILE_NAME), "{error}");
    // A hook salvages the rest and drops the key.
    let env = sb.env(&[]);
    let (loaded, errors) = load_salvaging(&ConfigRequest::new(&sb.project, &env));
    assert!(loaded.config.agentmem.identities.is_empty());
    assert!(!errors.is_empty());
    sb.write(
        &sb.project.join(PROJECT_FILE_NAME),
        "agentmem:\n  recall:\n    also: [github.com/victim/private]\n    max_tokens: 300\n",
    );
    assert!(matches!(
        sb.load(&sb.project, &[], &[]).unwrap_err(),
        ConfigError::UserOnly { key, .. } if key == "agentmem.recall.also"
    ));
    // The same keys in the user file, and the project's own budget, are fine.
    sb.write(&sb.user_file(), rule);
    sb.write(
        &sb.project.join(PROJECT_FILE_NAME),
        "agentmem:\n  recall:\n    max_tokens: 300\n",
    );
    let loaded = sb.load(&sb.project, &[], &[]).unwrap();
    assert_eq!(loaded.config.agentmem.identities.len(), 1);
    assert_eq!(loaded.config.agentmem.recall.max_tokens, 300);
    // Nor where captures go: a repository naming the memory folder would
    // have its own files recalled.
    for key in [
        "root: .mem",
        "events_path: ev.jsonl",
        "codex_sessions_dir: s",
    ] {
        sb.write(
            &sb.project.join(PROJECT_FILE_NAME),
            &format!("agentmem:\n  {key}\n"),
        );
        assert!(
            matches!(
                sb.load(&sb.project, &[], &[]),
                Err(ConfigError::UserOnly { .. })
            ),
            "{key}"
        );
    }
}

#[test]
fn errors_say_key_value_and_what_was_expected_in_the_users_terms() {
    let mut messages = Vec::new();
    let mut check = |text: &str, at: &str, expected: &str| {
        let (_, _, key, message, _) = invalid_file(text);
        assert_eq!(key.as_deref(), Some(at), "{text}");
        assert!(message.starts_with(expected), "{text}: {message}");
        messages.push(message);
    };
    check(
        "project_agent_rules:\n  strict: yes\n",
        "project_agent_rules.strict",
        "expected true or false, got `yes` (yes, no, on and off are text here, not booleans)",
    );
    check(
        "project_agent_rules:\n  strict: maybe # sure\n",
        "project_agent_rules.strict",
        "expected true or false, got `maybe`",
    );
    check(
        "agents:\n  root:\n    markers: .git\n",
        "agents.root.markers",
        "expected a list (`[a, b]`, or one `- item` per line), got `.git`",
    );
    check(
        "agents:\n  root:\n    markers: [[a]]\n",
        "agents.root.markers[0]",
        "expected a text value, got a list",
    );
    check(
        "agents:\n  initial:\n    maxFile: 3\n",
        "agents.initial.maxFile",
        "unknown key `maxFile`",
    );
    check(
        "project_agent_rules:\n  sandbox: sometimes\n",
        "project_agent_rules.sandbox",
        "unknown value `sometimes`, expected one of auto, on, off",
    );
    // An alias inside its own anchor.
    let (_, _, _, message, _) = invalid_file("agents: &a\n  root: *a\n");
    assert!(
        message.contains("refers to the anchor it is inside"),
        "{message}"
    );
    messages.push(message);
    for message in &messages {
        for internal in [
            "strict mode",
            "weak recursion",
            " start",
            "scalar",
            "variant",
            "field",
        ] {
            assert!(!message.contains(internal), "{message}");
        }
    }
}

#[test]
fn environment_and_flag_errors_say_it_in_the_users_terms_too() {
    let error = flag_error("agents.root.stopAtFsRoot=sometimes");
    assert!(
        error
            .contains("agents.root.stopAtFsRoot: expected true or false, got string \"sometimes\""),
        "{error}"
    );
    assert!(flag_error("agents.initial.maxFile=3").contains("unknown key `maxFile`"));
}

/// The attack pass on issue 38: a repository's `.agentctx.yaml` turned the
/// rules off (`enabled: false`) and with them the user's rules and home
/// secrets, or the sandbox off. A project may only tighten the guard.
#[test]
fn a_project_file_cannot_loosen_the_guard() {
    for (text, key) in [
        (
            "project_agent_rules:\n  enabled: false\n",
            "project_agent_rules.enabled",
        ),
        (
            "project_agent_rules:\n  sandbox: off\n",
            "project_agent_rules.sandbox",
        ),
        (
            "project_agent_rules:\n  sandbox: auto\n",
            "project_agent_rules.sandbox",
        ),
        (
            "project_agent_rules:\n  protect_config: false\n",
            "project_agent_rules.protect_config",
        ),
        (
            "project_agent_rules:\n  strict: false\n",
            "project_agent_rules.strict",
        ),
        (
            "project_agent_rules:\n  on_error: default_rules\n",
            "project_agent_rules.on_error",
        ),
    ] {
        let sb = Sandbox::new();
        sb.write(&sb.project.join(PROJECT_FILE_NAME), text);
        let error = sb.load(&sb.project, &[], &[]).unwrap_err();
        assert!(
            matches!(&error, ConfigError::Loosens { key: k, .. } if k == key),
            "{text}: {error}"
        );
        // A hook salvages the rest and keeps the user's value.
        let env = sb.env(&[]);
        let (loaded, errors) = load_salvaging(&ConfigRequest::new(&sb.project, &env));
        assert!(loaded.config.project_agent_rules.enabled, "{text}");
        assert!(!errors.is_empty(), "{text}");
    }
    // Tightening is the project's to ask for.
    let sb = Sandbox::new();
    sb.write(
        &sb.project.join(PROJECT_FILE_NAME),
        "project_agent_rules:\n  strict: true\n  sandbox: on\n  on_error: deny_all\n",
    );
    let loaded = sb.load(&sb.project, &[], &[]).unwrap();
    assert!(loaded.config.project_agent_rules.strict);
    // The user may loosen their own.
    let sb = Sandbox::new();
    sb.write(&sb.user_file(), "project_agent_rules:\n  sandbox: off\n");
    assert!(sb.load(&sb.project, &[], &[]).is_ok());
}
