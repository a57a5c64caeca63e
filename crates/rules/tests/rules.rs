//! Rule files and decisions: parsing of each form (snapshots), every bypass
//! the issue lists (each must be denied), and broken files under both
//! `on_error` settings.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests fail loudly")]

use std::fs;
use std::path::{Path, PathBuf};

use agentctx_rules::{Rules, lint, render_permission_decision};
use agentctx_types::{DecisionRule, OnRuleError, ProjectAgentRulesConfig, RulesSource};

fn fixture(name: &str) -> PathBuf {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures/rules")
        .join(name);
    fs::canonicalize(path).unwrap()
}

/// The fixture as a path with `..` in it, as a caller might pass it.
fn fixture_uncanonical(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures/rules")
        .join(name)
}

fn config() -> ProjectAgentRulesConfig {
    ProjectAgentRulesConfig::default()
}

/// A project root in a temp dir (canonical) with the given YAML rules.
struct Project {
    _dir: tempfile::TempDir,
    root: PathBuf,
}

impl Project {
    fn new(yaml: &str) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let root = fs::canonicalize(dir.path()).unwrap().join("repo");
        fs::create_dir_all(&root).unwrap();
        fs::write(root.join(".coding-agent-rules.yaml"), yaml).unwrap();
        Self { _dir: dir, root }
    }

    fn file(&self, relative: &str) -> PathBuf {
        let path = self.root.join(relative);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(&path, "x").unwrap();
        path
    }

    fn rules(&self) -> Rules {
        Rules::load(&self.root, &config()).unwrap()
    }
}

const GUARD: &str = "file_patterns:\n  exclude: [\"**/.env\", \"secrets/\"]\n";

fn denied(rules: &Rules, path: &str) -> agentctx_types::RuleDecision {
    let decision = rules.check_file(Path::new(path));
    assert!(!decision.allowed, "{path} must be denied: {decision:?}");
    decision
}

#[test]
fn yaml_form_parses_with_lines_and_warns_about_unknown_keys() {
    let rules = Rules::load(&fixture("yaml"), &config()).unwrap();
    insta::assert_debug_snapshot!(rules.rule_set());
    let warnings: Vec<String> = rules
        .warnings()
        .iter()
        .map(|w| {
            w.to_string()
                .replace(&fixture("yaml").display().to_string(), "[FIXTURE]")
        })
        .collect();
    assert_eq!(
        warnings,
        [
            "[FIXTURE]/.coding-agent-rules.yaml:14: unknown key `review_policy` is ignored (the known keys still apply)"
        ]
    );
    let d = rules.check_tool("github/delete_file");
    assert!(d.source.unwrap().ends_with(".coding-agent-rules.yaml:5"));
}

#[test]
fn markdown_form_parses_sections_prefixes_subheadings_and_code_spans() {
    let rules = Rules::load(&fixture("markdown"), &config()).unwrap();
    let set = rules.rule_set();
    assert!(
        set.system_prompt_extension
            .as_deref()
            .unwrap()
            .starts_with("# Project rules\n\nUse Rust 2024.")
    );
    insta::assert_debug_snapshot!((set.allowed_tools, set.denied_tools, set.file_patterns));
    assert!(matches!(
        rules.source(),
        RulesSource::File {
            format: agentctx_types::RuleFileFormat::Markdown,
            ..
        }
    ));
}

#[test]
fn github_agents_md_form_any_level_and_case() {
    let rules = Rules::load(&fixture("github"), &config()).unwrap();
    let set = rules.rule_set();
    assert_eq!(set.denied_tools, ["Bash"]);
    assert_eq!(set.file_patterns.exclude, [".env"]);
    assert!(!rules.check_tool("Bash").allowed);
}

#[test]
fn denied_tools_heading_inside_a_code_fence_does_not_count() {
    let rules = Rules::load(&fixture("markdown"), &config()).unwrap();
    assert_eq!(rules.rule_set().denied_tools, ["github/delete_file"]);
    assert!(rules.check_tool("Read").allowed);
}

#[test]
fn first_rule_file_wins_in_the_default_order() {
    let p = Project::new("denied_tools: [Bash]\n");
    fs::write(
        p.root.join(".coding-agent-rules.md"),
        "## Denied Tools\n- Read\n",
    )
    .unwrap();
    let rules = p.rules();
    assert!(!rules.check_tool("Bash").allowed);
    assert!(rules.check_tool("Read").allowed);
}

#[test]
fn no_rule_file_uses_default_rules_and_disabled_means_none() {
    let dir = tempfile::tempdir().unwrap();
    let mut cfg = config();
    cfg.default_rules.denied_tools = vec!["Bash".into()];
    let rules = Rules::load(dir.path(), &cfg).unwrap();
    let d = rules.check_tool("Bash");
    assert!(!d.allowed);
    assert_eq!(d.source.as_deref(), Some("default_rules"));
    cfg.enabled = false;
    let p = Project::new("denied_tools: [Bash]\n");
    assert!(
        Rules::load(&p.root, &cfg)
            .unwrap()
            .check_tool("Bash")
            .allowed
    );
}

#[test]
fn allow_wildcard_with_an_exact_deny() {
    let p = Project::new("allowed_tools: [\"github/*\"]\ndenied_tools: [github/delete_file]\n");
    let rules = p.rules();
    assert!(rules.check_tool("github/create_issue").allowed);
    let d = rules.check_tool("github/delete_file");
    assert!(!d.allowed);
    assert_eq!(d.rule, DecisionRule::DeniedTools);
    assert_eq!(d.entry.as_deref(), Some("github/delete_file"));
    assert!(!rules.check_tool("gitlab/create_issue").allowed);
    assert!(!rules.check_tool("github").allowed);
}

#[test]
fn empty_allowed_tools_list_passes_no_tool() {
    let rules = Project::new("allowed_tools: []\n").rules();
    let d = rules.check_tool("Read");
    assert!(!d.allowed);
    assert_eq!(d.rule, DecisionRule::NotInAllowedTools);
    assert!(
        Project::new("denied_tools: []\n")
            .rules()
            .check_tool("Read")
            .allowed
    );
}

#[test]
fn tool_matching_is_exact_and_case_sensitive_with_trimmed_entries() {
    let rules =
        Project::new("denied_tools: [\"  Bash  \", \"*\"]\nallowed_tools: [Read]\n").rules();
    assert_eq!(rules.check_tool("Bash").entry.as_deref(), Some("Bash"));
    let rules = Project::new("denied_tools: [Bash]\n").rules();
    assert!(rules.check_tool("bash").allowed);
}

#[test]
fn bypass_parent_dir_into_a_denied_file() {
    let p = Project::new(GUARD);
    p.file(".env");
    let d = denied(&p.rules(), "src/../.env");
    assert_eq!(d.rule, DecisionRule::Exclude);
}

#[test]
fn bypass_dot_slash_prefix() {
    denied(&Project::new(GUARD).rules(), "./secrets/key");
}

#[test]
fn bypass_repeated_slashes_and_parent() {
    denied(&Project::new(GUARD).rules(), "src//../secrets/key");
}

#[test]
fn bypass_absolute_path_of_a_denied_file() {
    let p = Project::new(GUARD);
    let key = p.file("secrets/key");
    denied(&p.rules(), key.to_str().unwrap());
}

#[test]
fn outside_the_root_is_denied_when_include_lists_where_the_agent_may_work() {
    let p = Project::new("file_patterns:\n  include: [\"src/**\"]\n");
    let outside = p.root.parent().unwrap().join("other/file.txt");
    let d = denied(&p.rules(), outside.to_str().unwrap());
    assert_eq!(d.rule, DecisionRule::OutsideRoot);
    let d = denied(&p.rules(), "../../x");
    assert_eq!(d.rule, DecisionRule::OutsideRoot);
    let d = denied(&p.rules(), "/etc/passwd");
    assert!(
        d.message.contains("outside the project root"),
        "{}",
        d.message
    );
}

#[test]
fn outside_the_root_is_not_restricted_without_an_include_list() {
    // Excludes name paths in the project; nothing names /etc/hosts.
    for yaml in [GUARD, "denied_tools: []\n"] {
        let p = Project::new(yaml);
        for path in ["/etc/hosts", "../../x"] {
            let d = p.rules().check_file(Path::new(path));
            assert!(d.allowed, "{yaml}: {path}: {d:?}");
            assert_eq!(d.rule, DecisionRule::NoRestriction);
        }
    }
    // No rule file at all: no restriction anywhere.
    let dir = tempfile::tempdir().unwrap();
    let rules = Rules::load(dir.path(), &config()).unwrap();
    assert!(rules.check_file(Path::new("/etc/hosts")).allowed);
}

#[cfg(unix)]
#[test]
fn bypass_symlink_inside_the_root_to_a_denied_file() {
    let p = Project::new(GUARD);
    let key = p.file("secrets/key");
    std::os::unix::fs::symlink(&key, p.root.join("innocent.txt")).unwrap();
    let d = denied(&p.rules(), "innocent.txt");
    assert_eq!(d.rule, DecisionRule::Exclude);
    assert!(d.resolved.unwrap().ends_with("secrets/key"));
}

#[cfg(unix)]
#[test]
fn bypass_symlinked_directory_in_the_middle_of_the_path() {
    let p = Project::new(GUARD);
    p.file("secrets/deep/key");
    fs::create_dir_all(p.root.join("src")).unwrap();
    std::os::unix::fs::symlink(p.root.join("secrets"), p.root.join("src/cfg")).unwrap();
    denied(&p.rules(), "src/cfg/deep/key");
    // Also for a file that does not exist yet (a write through the link).
    denied(&p.rules(), "src/cfg/new-file");
}

#[cfg(unix)]
#[test]
fn bypass_symlink_to_outside_the_root() {
    let p = Project::new("file_patterns:\n  include: [\"**\"]\n");
    std::os::unix::fs::symlink("/etc", p.root.join("etc-link")).unwrap();
    let d = denied(&p.rules(), "etc-link/passwd");
    assert_eq!(d.rule, DecisionRule::OutsideRoot);
    assert!(
        d.message.contains("symlink to /etc/passwd"),
        "{}",
        d.message
    );
}

#[cfg(unix)]
#[test]
fn bypass_dangling_link() {
    let p = Project::new(GUARD);
    std::os::unix::fs::symlink(p.root.join("nowhere/at/all"), p.root.join("dangling")).unwrap();
    let d = denied(&p.rules(), "dangling");
    assert_eq!(d.rule, DecisionRule::UnresolvableLink);
}

#[cfg(unix)]
#[test]
fn bypass_link_loop() {
    let p = Project::new(GUARD);
    std::os::unix::fs::symlink(p.root.join("loop-b"), p.root.join("loop-a")).unwrap();
    std::os::unix::fs::symlink(p.root.join("loop-a"), p.root.join("loop-b")).unwrap();
    let d = denied(&p.rules(), "loop-a/file");
    assert_eq!(d.rule, DecisionRule::UnresolvableLink);
}

#[test]
fn bypass_case_dot_env_against_double_star_env() {
    let rules = Project::new(GUARD).rules();
    denied(&rules, ".ENV");
    denied(&rules, "app/config/.Env");
}

#[test]
fn bypass_file_below_a_directory_pattern() {
    let d = denied(&Project::new(GUARD).rules(), "secrets/key.txt");
    assert_eq!(d.entry.as_deref(), Some("secrets/"));
    assert!(d.source.unwrap().ends_with(".coding-agent-rules.yaml:2"));
}

#[test]
fn include_patterns_are_case_sensitive_and_exclude_wins() {
    let rules =
        Project::new("file_patterns:\n  include: [\"src/**\"]\n  exclude: [\"src/generated/\"]\n")
            .rules();
    assert!(rules.check_file(Path::new("src/lib.rs")).allowed);
    assert_eq!(denied(&rules, "SRC/lib.rs").rule, DecisionRule::NotIncluded);
    assert_eq!(
        denied(&rules, "src/generated/x.rs").rule,
        DecisionRule::Exclude
    );
}

#[test]
fn yaml_syntax_error_falls_back_to_default_rules_not_to_the_markdown_file() {
    let root = fixture("broken-yaml");
    let mut cfg = config();
    cfg.default_rules.denied_tools = vec!["WebFetch".into()];
    let rules = Rules::load(&root, &cfg).unwrap();
    let error = rules.error().expect("the error is kept and reported");
    assert!(
        error.to_string().contains(".coding-agent-rules.yaml:"),
        "{error}"
    );
    assert!(error.line.is_some());
    assert_eq!(rules.source(), &RulesSource::DefaultRules);
    // The Markdown file's `Read` deny does not apply; default_rules do.
    assert!(rules.check_tool("Read").allowed);
    assert!(!rules.check_tool("WebFetch").allowed);
}

#[test]
fn yaml_syntax_error_under_deny_all_denies_every_tool_and_file() {
    let mut cfg = config();
    cfg.on_error = OnRuleError::DenyAll;
    let rules = Rules::load(&fixture("broken-yaml"), &cfg).unwrap();
    for tool in ["Read", "Edit", "github/create_issue"] {
        let d = rules.check_tool(tool);
        assert!(!d.allowed);
        assert_eq!(d.rule, DecisionRule::BrokenRuleFile);
    }
    assert_eq!(
        denied(&rules, "src/lib.rs").rule,
        DecisionRule::BrokenRuleFile
    );
}

#[test]
fn wrong_types_and_invalid_globs_are_errors_too() {
    for (yaml, needle) in [
        ("allowed_tools: Read\n", "allowed_tools"),
        (
            "file_patterns:\n  exclude: [\"src/[\"]\n",
            "invalid pattern `src/[`",
        ),
    ] {
        let p = Project::new(yaml);
        let rules = p.rules();
        let error = rules
            .error()
            .unwrap_or_else(|| panic!("{yaml} must be an error"));
        assert!(
            error.to_string().contains(".coding-agent-rules.yaml:2")
                || error.to_string().contains(needle)
                || error.line.is_some(),
            "{error}"
        );
        assert_eq!(rules.source(), &RulesSource::DefaultRules);
    }
}

#[test]
fn permission_reminders_for_a_tool_and_a_file() {
    let root = fixture("yaml");
    // Loaded through a path with `..`: decisions are made against the real root.
    let rules = Rules::load(&fixture_uncanonical("yaml"), &config()).unwrap();
    let tool = render_permission_decision(&rules.check_tool("github/delete_file"), &rules);
    let file = render_permission_decision(&rules.check_file(Path::new("secrets/key.pem")), &rules);
    let redact = |s: String| s.replace(&root.display().to_string(), "[FIXTURE]");
    insta::assert_snapshot!("permission_tool", redact(tool));
    insta::assert_snapshot!("permission_file", redact(file));
    assert_eq!(
        render_permission_decision(&rules.check_tool("Read"), &rules),
        ""
    );
}

#[test]
fn lint_reports_every_problem() {
    let p = Project::new(
        "allowed_tools: [Read, \"gh*\"]\ndenied_tools: [Read, \"gh*\"]\nfile_patterns:\n  exclude: [\"../up\", \"a[\"]\nmystery: 1\n",
    );
    let report = lint(&p.root, &config());
    let messages: Vec<String> = report
        .findings
        .iter()
        .map(|f| format!("{}: {}", f.line.unwrap_or(0), f.message))
        .collect();
    insta::assert_debug_snapshot!(messages);
    assert!(lint(&fixture("github"), &config()).findings.is_empty());
}

/// The example: `!keep.env` was taken as a literal name and lint
/// said ok. It is an error now, with its line, and a rule file holding it
/// is broken (its `on_error` policy applies), never half-applied.
#[test]
fn a_negated_exclude_is_a_lint_error_and_breaks_the_rule_file() {
    let p = Project::new("file_patterns:\n  exclude: [\"*.env\", \"!keep.env\"]\n");
    let report = lint(&p.root, &config());
    assert_eq!(report.findings.len(), 1, "{:?}", report.findings);
    assert_eq!(report.findings[0].line, Some(2));
    assert!(
        report.findings[0]
            .message
            .contains("negation is not supported")
    );
    let rules = Rules::load(&p.root, &config()).unwrap();
    assert!(
        rules.error().is_some(),
        "the file is broken, not applied without the entry"
    );
}

#[test]
fn many_patterns_decide_like_few() {
    let mut yaml = String::from("file_patterns:\n  exclude:\n");
    for i in 0..200 {
        yaml.push_str(&format!("    - \"generated-{i}/\"\n"));
    }
    yaml.push_str("    - \"**/.env\"\n");
    let rules = Project::new(&yaml).rules();
    assert!(!rules.check_file(Path::new("a/generated-150/x")).allowed);
    assert!(!rules.check_file(Path::new("x/.env")).allowed);
    assert!(rules.check_file(Path::new("src/lib.rs")).allowed);
}

/// A path typed by a user: as typed at the root, against the working
/// directory elsewhere; the working directory is looked at again when it
/// changes between calls (one checker serves a whole `--stdin`).
#[test]
fn typed_paths_are_taken_against_the_working_directory_they_were_typed_in() {
    let p = Project::new("file_patterns:\n  exclude: [\"sub/secret.txt\"]\n");
    p.file("sub/secret.txt");
    let rules = p.rules();
    let mut checker = rules.file_checker();
    let at_root = checker.check_typed(&p.root, "sub/secret.txt");
    assert!(!at_root.allowed);
    assert_eq!(at_root.item, "sub/secret.txt");
    let in_sub = checker.check_typed(&p.root.join("sub"), "secret.txt");
    assert!(!in_sub.allowed, "{in_sub:?}");
    assert_eq!(in_sub.item, "secret.txt");
    // Back at the root, `secret.txt` is another file, and allowed.
    assert!(checker.check_typed(&p.root, "secret.txt").allowed);
}

#[test]
fn rule_file_errors_say_key_value_and_what_was_expected_in_the_users_terms() {
    for (yaml, expected) in [
        (
            "strict: yes\n",
            ":1:9: strict: expected true or false, got `yes` (yes, no, on and off are text here, not booleans)",
        ),
        (
            "file_patterns:\n  exclude: secrets/\n",
            ":2:12: file_patterns.exclude: expected a list (`[a, b]`, or one `- item` per line), got `secrets/`",
        ),
        (
            "denied_tools: [Bash, {a: b}]\n",
            ":1:22: denied_tools: expected a text value, got a mapping `{a: b}`",
        ),
        (
            "allowed_tools:\n  - name: x\n",
            ": allowed_tools: expected a text value, got `name: x`",
        ),
        (
            "file_list:\n  format: fancy\n",
            ":2:11: file_list.format: unknown value `fancy`, expected one of tree, flat, compact",
        ),
        (
            "denied_tools: &a [*a]\n",
            "denied_tools: an alias (`*name`) refers to the anchor it is inside",
        ),
    ] {
        let p = Project::new(yaml);
        let rules = p.rules();
        let error = rules
            .error()
            .unwrap_or_else(|| panic!("{yaml} must be an error"))
            .to_string();
        assert!(error.contains(expected), "{yaml}: {error}");
        for internal in [
            "strict mode",
            "weak recursion",
            " start",
            "scalar",
            "variant",
        ] {
            assert!(!error.contains(internal), "{error}");
        }
    }
}

/// A `network` entry that names nothing is an error at its line: an allow
/// list that silently does not apply is worse than none. A valid section
/// keeps its entries with their lines and makes the rules restrict.
#[test]
fn network_entries_are_checked_with_their_lines() {
    for (yaml, line, needle) in [
        (
            "network:\n  allow:\n    - https://api.example.com\n",
            3,
            "a host, not a URL",
        ),
        (
            "network:\n  allow: [example.com]\n  deny: [\"ex*ample.com\"]\n",
            3,
            "`*` only",
        ),
        (
            "network:\n  allow: [\"example.com:99999\"]\n",
            2,
            "not a port",
        ),
    ] {
        let p = Project::new(yaml);
        let rules = p.rules();
        let error = rules
            .error()
            .unwrap_or_else(|| panic!("{yaml} must be an error"));
        assert_eq!(error.line, Some(line), "{yaml}: {error}");
        assert!(error.to_string().contains(needle), "{yaml}: {error}");
    }
    let p = Project::new(
        "network:\n  allow: [\"*.github.com\", \"localhost:3000\"]\n  deny: [gist.github.com]\n",
    );
    let rules = p.rules();
    assert!(rules.error().is_none());
    assert!(rules.restricts_anything());
    let network = rules.doc().network.clone().unwrap();
    let allow: Vec<(String, Option<u64>)> = network
        .allow
        .into_iter()
        .map(|e| (e.text, e.line))
        .collect();
    assert_eq!(
        allow,
        [
            ("*.github.com".to_owned(), Some(2)),
            ("localhost:3000".to_owned(), Some(2))
        ]
    );
    assert_eq!(network.deny[0].text, "gist.github.com");
    let unknown = Project::new("network:\n  allow: [a.test]\n  allowed: [b.test]\n");
    let warnings: Vec<String> = unknown
        .rules()
        .warnings()
        .iter()
        .map(ToString::to_string)
        .collect();
    assert!(
        warnings
            .iter()
            .any(|w| w.contains("unknown key `network.allowed`")),
        "{warnings:?}"
    );
}

/// The Markdown form's `Network` section: `Allow` and `Deny` below it
/// (an entry under `Network` itself is allowed), lines kept; an entry
/// that names nothing breaks the file at its line, as in YAML.
#[test]
fn markdown_network_section_with_allow_and_deny() {
    let dir = tempfile::tempdir().unwrap();
    let root = fs::canonicalize(dir.path()).unwrap();
    let text = "# Rules\n\nBe careful.\n\n## Network\n\n- `registry.npmjs.org:443`\n\n### Allow\n\n- `*.github.com` (the forge)\n\n### Deny\n\n- gist.github.com\n";
    fs::write(root.join(".coding-agent-rules.md"), text).unwrap();
    let rules = Rules::load(&root, &config()).unwrap();
    assert!(rules.error().is_none(), "{:?}", rules.error());
    let network = rules.doc().network.clone().unwrap();
    let allow: Vec<(String, Option<u64>)> = network
        .allow
        .into_iter()
        .map(|e| (e.text, e.line))
        .collect();
    assert_eq!(
        allow,
        [
            ("registry.npmjs.org:443".to_owned(), Some(7)),
            ("*.github.com".to_owned(), Some(11))
        ]
    );
    assert_eq!(network.deny[0].text, "gist.github.com");
    assert_eq!(network.deny[0].line, Some(15));
    // A heading alone confines the network with nothing allowed.
    fs::write(root.join(".coding-agent-rules.md"), "## Network\n").unwrap();
    let rules = Rules::load(&root, &config()).unwrap();
    assert_eq!(rules.doc().network.clone().map(|n| n.allow.len()), Some(0));
    // A URL is not a host: the file is broken at the entry's line.
    fs::write(
        root.join(".coding-agent-rules.md"),
        "## Network\n\n### Deny\n\n- https://evil.test/x\n",
    )
    .unwrap();
    let rules = Rules::load(&root, &config()).unwrap();
    let error = rules.error().expect("a broken network entry");
    assert_eq!(error.line, Some(5), "{error}");
}
