//! `agentctx files` through the binary: precedence of config, rule file and
//! flags; JSON; timestamps; failure.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests fail loudly")]

mod common;

use common::{TestEnv, run};

fn project() -> TestEnv {
    let t = TestEnv::new();
    for file in [
        ".git/HEAD",
        "README.md",
        "src/main.rs",
        "src/deep/er/x.rs",
        "docs/a.md",
        "fixtures/large/blob.bin",
    ] {
        t.write(&format!("project/{file}"), "x\n");
    }
    t
}

#[test]
fn rule_file_overrides_config_and_flags_override_both() {
    let t = project();
    t.write(
        "project/.agentctx.yaml",
        "file_list_context:\n  format: flat\n  max_depth: 1\n",
    );
    t.write(
        "project/.coding-agent-rules.yaml",
        "file_list:\n  exclude_patterns: [\"fixtures/large/\"]\n  max_depth: 4\n",
    );
    let (code, stdout, stderr) = run(t.cmd().args(["files", "--no-timestamp"]));
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stdout.starts_with("<project_files root=\"project\" format=\"flat\">\n"),
        "{stdout}"
    );
    assert!(
        stdout.contains("src/deep/er/x.rs"),
        "rule file depth 4 wins over config 1:\n{stdout}"
    );
    assert!(
        !stdout.contains("blob.bin"),
        "rule file exclude applies:\n{stdout}"
    );
    let (_, stdout, _) = run(t.cmd().args([
        "files",
        "--no-timestamp",
        "--format",
        "tree",
        "--max-depth",
        "1",
        "--exclude",
        "docs",
    ]));
    assert!(stdout.contains("format=\"tree\""));
    assert!(
        !stdout.contains("docs") && !stdout.contains("x.rs"),
        "{stdout}"
    );
}

#[test]
fn json_has_the_documented_fields_and_counts_tokens() {
    let t = project();
    let (code, stdout, _) = run(t.cmd().args(["files", "--json", "--no-timestamp"]));
    assert_eq!(code, 0);
    let report: agentctx_types::FileListReport = serde_json::from_str(&stdout).unwrap();
    assert_eq!(report.root, "project");
    assert_eq!(report.files_total, 5);
    assert!(report.tokens.unwrap() > 10);
    assert!(report.generated.is_none());
    // No depth limit by default: src/deep/er/x.rs, four levels down, is
    // named; a depth given by hand cuts exactly there (`tree -L 3`).
    assert!(!report.partial, "{report:?}");
    assert_eq!(report.max_depth, None);
    assert!(
        report.text.contains("  deep/er/\n    x.rs\n"),
        "{}",
        report.text
    );
    for (depth, shown) in [
        ("3", "  deep/er/ (1 file)\n"),
        ("1", "src/ (2 files, 2 dirs)\n"),
    ] {
        let (_, stdout, _) =
            run(t
                .cmd()
                .args(["files", "--json", "--no-timestamp", "--max-depth", depth]));
        let report: agentctx_types::FileListReport = serde_json::from_str(&stdout).unwrap();
        assert_eq!(report.partial_reasons, [format!("max_depth {depth}")]);
        assert!(report.text.contains(shown), "{}", report.text);
    }
}

#[test]
fn a_home_folder_is_listed_as_no_project_without_its_tools_state() {
    let t = project();
    for file in [
        ".claude/debug/session.txt",
        ".ssh/id_ed25519",
        ".bashrc",
        "notes/todo.md",
    ] {
        t.write(&format!("home/{file}"), "x\n");
    }
    let reason = "no project root found: dot files and folders not listed";
    let (code, stdout, stderr) = run(t
        .cmd()
        .args(["files", "--no-timestamp"])
        .current_dir(&t.home));
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stdout.starts_with(&format!(
            "<project_files root=\"home\" format=\"tree\" partial=\"{reason}\">\nnotes/\n  todo.md\n"
        )),
        "{stdout}"
    );
    for private in [".claude", ".ssh", ".bashrc", "debug"] {
        assert!(!stdout.contains(private), "{private}:\n{stdout}");
    }
    // A folder without a root marker is no project either; the session's
    // context says so too.
    t.write("scratch/.env", "TOKEN=x\n");
    t.write("scratch/notes.md", "x\n");
    let scratch = t.dir.path().join("scratch");
    let (_, stdout, _) = run(t.cmd().args(["context"]).current_dir(&scratch));
    assert!(stdout.contains(reason), "{stdout}");
    assert!(
        stdout.contains("notes.md") && !stdout.contains(".env"),
        "{stdout}"
    );
    // A project (its `.git`) lists its own dot folders and says nothing.
    t.write("project/.github/workflows/ci.yml", "x\n");
    let (_, stdout, _) = run(t.cmd().args(["files", "--no-timestamp"]));
    assert!(
        stdout.contains(".github/") && !stdout.contains(reason),
        "{stdout}"
    );
}

#[test]
fn source_date_epoch_makes_the_header_reproducible() {
    let t = project();
    let once = run(t
        .cmd()
        .args(["files"])
        .env("SOURCE_DATE_EPOCH", "1795255200"))
    .1;
    let twice = run(t
        .cmd()
        .args(["files"])
        .env("SOURCE_DATE_EPOCH", "1795255200"))
    .1;
    assert_eq!(once, twice);
    assert!(
        once.contains("generated=\"2026-11-21T10:00:00Z\""),
        "{once}"
    );
    let (code, _, stderr) = run(t
        .cmd()
        .args(["files"])
        .env("SOURCE_DATE_EPOCH", "yesterday"));
    assert_eq!(code, 2);
    assert!(stderr.contains("SOURCE_DATE_EPOCH"), "{stderr}");
}

#[test]
fn token_budget_is_met_and_reported() {
    let t = project();
    let (_, stdout, _) = run(t.cmd().args([
        "files",
        "--json",
        "--no-timestamp",
        "--token-budget",
        "40",
        "--tokenizer",
        "cl100k",
    ]));
    let report: agentctx_types::FileListReport = serde_json::from_str(&stdout).unwrap();
    assert!(
        report.tokens.unwrap() <= 40
            || report
                .partial_reasons
                .iter()
                .any(|r| r.contains("cannot be met")),
        "{report:?}"
    );
    assert!(
        report
            .partial_reasons
            .iter()
            .any(|r| r.starts_with("token budget 40")),
        "{report:?}"
    );
}

#[test]
fn invalid_pattern_or_missing_root_is_exit_2() {
    let t = project();
    let (code, _, stderr) = run(t.cmd().args(["files", "--exclude", "a["]));
    assert_eq!(code, 2);
    assert!(stderr.contains("invalid exclude pattern `a[`"), "{stderr}");
    let (code, _, stderr) = run(t
        .cmd()
        .args(["files"])
        .env("CODELIA_AGENTS_ROOT", "/no/such/root"));
    assert_eq!(code, 2, "{stderr}");
}

#[test]
fn from_json_lists_saved_responses_of_either_platform() {
    let t = project();
    let fixtures = std::fs::canonicalize(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/api"),
    )
    .unwrap();
    let gh = fixtures.join("github/tree.json");
    let gl = fixtures.join("gitlab/pages-concatenated.json");
    let (code, a, stderr) = run(t.cmd().args([
        "files",
        "--no-timestamp",
        "--max-depth",
        "9",
        "--platform",
        "github",
        "--from-json",
        gh.to_str().unwrap(),
    ]));
    assert_eq!(code, 0, "{stderr}");
    let (_, b, _) = run(t.cmd().args([
        "files",
        "--no-timestamp",
        "--max-depth",
        "9",
        "--platform",
        "gitlab",
        "--from-json",
        gl.to_str().unwrap(),
    ]));
    let body = |s: &str| s.lines().skip(1).collect::<Vec<_>>().join("\n");
    assert_eq!(body(&a), body(&b));
    assert!(a.contains("dep/ @submodule"), "{a}");
    let (code, _, stderr) = run(t.cmd().args(["files", "--from-json", gh.to_str().unwrap()]));
    assert_eq!(code, 2, "--platform is required: {stderr}");
}

#[test]
fn unreachable_api_is_exit_2_with_a_one_line_error() {
    let t = project();
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let (code, _, stderr) = run(t
        .cmd()
        .args([
            "files",
            "--no-cache",
            "--github",
            "acme/app@main",
            "--api-url",
            &format!("http://127.0.0.1:{port}"),
        ])
        .env("GITHUB_TOKEN", "ghp_secret_value_123"));
    assert_eq!(code, 2);
    assert!(
        stderr.starts_with("error: acme/app: cannot connect to 127.0.0.1"),
        "{stderr}"
    );
    assert!(!stderr.contains("ghp_secret_value_123"));
}

#[test]
fn the_configured_budget_is_used_by_context_and_files() {
    let t = TestEnv::new();
    // Names without digits, so that no run groups them into one line.
    for a in ["alpha", "beta", "gamma", "delta", "omega", "kappa"] {
        for b in [
            "parser", "lexer", "render", "store", "cache", "index", "query", "plan",
        ] {
            t.write(&format!("project/src/{a}_{b}.rs"), "x\n");
        }
    }
    t.write("project/README.md", "x\n");
    t.write("project/.git/HEAD", "x\n");
    t.write(
        "project/.agentctx.yaml",
        "file_list_context:\n  token_budget: 120\n",
    );
    let (code, stdout, stderr) = run(t.cmd().args(["--json", "context"]));
    assert_eq!(code, 0, "{stderr}");
    let value: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    let files = value["tokens"]["files"].as_u64().unwrap();
    assert!((108..=120).contains(&files), "{files} tokens:\n{stdout}");
    let (_, stdout, _) = run(t.cmd().args(["--json", "files", "--no-timestamp"]));
    let report: agentctx_types::FileListReport = serde_json::from_str(&stdout).unwrap();
    assert!(report.tokens.unwrap() <= 120);
    assert_eq!(report.partial_reasons, ["token budget 120"]);
    assert!(report.text.contains("README.md"), "{}", report.text);
}

#[test]
fn a_name_that_is_no_repository_is_exit_2_before_connecting() {
    let t = project();
    t.write(
        "project/.agentctx.yaml",
        "file_list_context:\n  timeout_secs: 1\n",
    );
    // A port that takes connections and never answers: any connection
    // waits in its backlog, where `accept` finds it afterwards.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let api = format!("http://{}", listener.local_addr().unwrap());
    for (flag, name, message) in [
        (
            "--github",
            "not a repo",
            "error: `not a repo` is not a GitHub repository: 1 part where OWNER/REPO has 2 \
             (expected OWNER/REPO[@REF])\n",
        ),
        (
            "--gitlab",
            "project@main",
            "error: `project@main` is not a GitLab repository: 1 part where GROUP/PROJECT has \
             at least 2 (expected GROUP/.../PROJECT[@REF] or a project id)\n",
        ),
    ] {
        let (code, stdout, stderr) =
            run(t
                .cmd()
                .args(["files", "--no-cache", flag, name, "--api-url", &api]));
        assert_eq!(code, 2, "{stdout}");
        assert_eq!(stderr, message);
        assert!(listener.accept().is_err(), "{name}: a connection was made");
    }
    // The control: a name that can exist does connect (and times out).
    let (code, _, stderr) = run(t.cmd().args([
        "files",
        "--no-cache",
        "--github",
        "acme/app",
        "--api-url",
        &api,
    ]));
    assert_eq!(code, 2);
    assert!(stderr.contains("acme/app: no answer within 1s"), "{stderr}");
    assert!(listener.accept().is_ok(), "the control connected");
}
