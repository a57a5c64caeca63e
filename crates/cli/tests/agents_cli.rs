//! The AGENTS.md commands through the binary, as hooks call them.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests fail loudly")]

mod common;

use std::path::PathBuf;
use std::process::Stdio;

use common::{TestEnv, run};

/// A repository with a root AGENTS.md and a nested one.
fn repo(t: &TestEnv) -> PathBuf {
    t.write("project/.git/HEAD", "ref: refs/heads/main\n");
    t.write("project/AGENTS.md", "Root rules.\n");
    t.write("project/feature/AGENTS.md", "Feature rules.\n");
    std::fs::canonicalize(&t.project).unwrap()
}

#[test]
fn root_json_names_source_and_marker() {
    let t = TestEnv::new();
    let root = repo(&t);
    let (code, stdout, _) = run(t.cmd().args(["-C", "feature", "root", "--json"]));
    assert_eq!(code, 0);
    let info: agentctx_types::RootInfo = serde_json::from_str(&stdout).unwrap();
    assert_eq!(info.root, root);
    assert_eq!(info.cwd, root.join("feature"));
    assert_eq!(info.source, agentctx_types::RootSource::Marker);
    assert_eq!(info.marker.as_deref(), Some(".git"));
}

#[test]
fn root_override_from_env_wins_and_a_missing_one_is_exit_2() {
    let t = TestEnv::new();
    repo(&t);
    let elsewhere = t.write("other/keep", "");
    let other = elsewhere.parent().unwrap();
    let (code, stdout, _) = run(t.cmd().arg("root").env("CODELIA_AGENTS_ROOT", other));
    assert_eq!(code, 0);
    assert_eq!(
        stdout.trim(),
        std::fs::canonicalize(other).unwrap().display().to_string()
    );
    let (code, _, stderr) = run(t
        .cmd()
        .arg("root")
        .env("CODELIA_AGENTS_ROOT", "/no/such/dir"));
    assert_eq!(code, 2);
    assert!(stderr.contains("/no/such/dir"), "{stderr}");
}

#[test]
fn agents_init_without_a_chain_prints_nothing() {
    let t = TestEnv::new();
    t.write("project/.git/HEAD", "ref: x\n");
    let (code, stdout, stderr) = run(t.cmd().args(["agents", "init"]));
    assert_eq!((code, stdout.as_str()), (0, ""), "{stderr}");
}

#[test]
fn agents_init_json_reports_omitted_files_and_warns() {
    let t = TestEnv::new();
    repo(&t);
    let (code, stdout, stderr) = run(t.cmd().args([
        "-C",
        "feature",
        "agents",
        "init",
        "--json",
        "--set",
        "agents.initial.maxFiles=1",
    ]));
    assert_eq!(code, 0);
    let bundle: agentctx_types::InitialBundle = serde_json::from_str(&stdout).unwrap();
    assert_eq!(bundle.files.len(), 1);
    assert_eq!(bundle.omitted.len(), 1);
    assert!(bundle.omitted[0].path.ends_with("feature/AGENTS.md"));
    assert!(
        stderr.contains("WARN") && stderr.contains("feature/AGENTS.md"),
        "{stderr}"
    );
}

#[test]
fn resolve_with_a_session_id_reports_once_then_again_after_an_edit() {
    let t = TestEnv::new();
    repo(&t);
    let resolve = |t: &TestEnv| {
        run(t.cmd().args([
            "agents",
            "resolve",
            "feature/src/lib.rs",
            "--session-id",
            "s1",
        ]))
    };
    let (code, first, stderr) = resolve(&t);
    assert_eq!(code, 0, "{stderr}");
    assert!(first.contains("feature/AGENTS.md (mtime: "), "{first}");
    assert!(!first.contains("Feature rules"));
    assert_eq!(resolve(&t).1, "");
    let nested = t.project.join("feature/AGENTS.md");
    let file = std::fs::File::options().write(true).open(&nested).unwrap();
    file.set_modified(
        std::time::SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(2_000_000_000),
    )
    .unwrap();
    assert!(resolve(&t).1.contains("(mtime: 2000000000000)"));
    assert!(
        t.home
            .join(".local/state/agentctx/sessions/s1.json")
            .is_file()
    );
}

#[test]
fn resolve_json_is_resolved_agents_exactly() {
    let t = TestEnv::new();
    repo(&t);
    let (_, stdout, _) = run(t.cmd().args(["agents", "resolve", "feature", "--json"]));
    let value: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    let files = value["files"].as_array().unwrap();
    assert_eq!(files.len(), 1);
    let keys: Vec<&String> = files[0].as_object().unwrap().keys().collect();
    assert_eq!(keys, ["path", "mtimeMs", "sizeBytes"]);
    assert_eq!(value.as_object().unwrap().len(), 1);
}

#[test]
fn session_resume_reports_a_moved_cwd_once() {
    let t = TestEnv::new();
    repo(&t);
    let session = t.dir.path().join("state.json");
    let s = session.to_str().unwrap();
    assert_eq!(run(t.cmd().args(["agents", "init", "--session", s])).0, 0);
    let (code, stdout, _) =
        run(t
            .cmd()
            .args(["-C", "feature", "session", "resume", "--session", s]));
    assert_eq!(code, 0);
    assert!(
        stdout.starts_with("<system-reminder type=\"session.resume.diff\">\n- cwd: "),
        "{stdout}"
    );
    assert!(
        stdout.contains("Re-check AGENTS.md for current scope:\n- "),
        "{stdout}"
    );
    let (_, again, _) = run(t
        .cmd()
        .args(["-C", "feature", "session", "resume", "--session", s]));
    assert_eq!(again, "");
}

#[test]
fn invalid_session_id_is_exit_2() {
    let t = TestEnv::new();
    repo(&t);
    let (code, _, stderr) =
        run(t
            .cmd()
            .args(["agents", "resolve", "x", "--session-id", "../escape"]));
    assert_eq!(code, 2);
    assert!(stderr.contains("invalid session id"), "{stderr}");
}

#[test]
fn trim_filters_stdin() {
    let t = TestEnv::new();
    let mut child = t
        .cmd()
        .args(["trim", "--max-bytes", "5"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write as _;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"0123456789\n")
        .unwrap();
    let out = child.wait_with_output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.starts_with("01234\n<system-reminder type=\"tool.output.trimmed\">"),
        "{text}"
    );
}

#[test]
fn prompt_agents_guidance_covers_the_rules_for_the_model() {
    let t = TestEnv::new();
    let (code, text, _) = run(t.cmd().args(["prompt", "agents-guidance"]));
    assert_eq!(code, 0);
    for needle in [
        "agents_context",
        "agents.resolve.paths",
        "session.resume.diff",
        "do not read them\nagain",
    ] {
        assert!(text.contains(needle), "missing {needle:?}");
    }
}

/// Hooks for parallel tool calls run at once: a new AGENTS.md must be
/// reported by exactly one of them.
#[test]
fn concurrent_resolves_on_one_session_report_a_new_file_exactly_once() {
    let t = TestEnv::new();
    repo(&t);
    let session = t.dir.path().join("shared.json");
    let s = session.to_str().unwrap();
    assert_eq!(run(t.cmd().args(["agents", "init", "--session", s])).0, 0);
    let children: Vec<_> = (0..32)
        .map(|i| {
            t.cmd()
                .args([
                    "agents",
                    "resolve",
                    &format!("feature/file{i}.rs"),
                    "--session",
                    s,
                ])
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    let mut reports = 0;
    for child in children {
        let out = child.wait_with_output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        reports += String::from_utf8(out.stdout)
            .unwrap()
            .matches("feature/AGENTS.md")
            .count();
    }
    assert_eq!(reports, 1);
    let state: agentctx_types::SessionState =
        serde_json::from_str(&std::fs::read_to_string(&session).unwrap()).unwrap();
    assert_eq!(state.loaded_versions.len(), 2);
}

/// The part `trim` cuts is kept under the id its reminder names, and
/// `output get` gives it back in pages of whole lines.
#[test]
fn trim_keeps_what_it_cuts_and_output_get_returns_it() {
    let t = TestEnv::new();
    let lines: String = (0..50).map(|i| format!("line {i:02}\n")).collect();
    let mut child = t
        .cmd()
        .args(["--json", "trim", "--max-bytes", "40"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write as _;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(lines.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let id = report["id"].as_str().unwrap().to_owned();
    let text = report["text"].as_str().unwrap();
    assert!(
        text.starts_with("line 00\nline 01\nline 02\nline 03\nline 04\n<system-reminder"),
        "{text}"
    );
    assert!(
        text.contains(&format!("agentctx output get {id}")),
        "{text}"
    );
    // Paged back, whole lines, and together exactly what was cut.
    let mut got = String::new();
    let mut offset = 0;
    loop {
        let (code, page, stderr) = run(t.cmd().args([
            "--json",
            "output",
            "get",
            &id,
            "--offset",
            &offset.to_string(),
            "--max-bytes",
            "100",
        ]));
        assert_eq!(code, 0, "{stderr}");
        let page: serde_json::Value = serde_json::from_str(&page).unwrap();
        let chunk = page["text"].as_str().unwrap();
        assert!(chunk.ends_with('\n') && chunk.len() <= 100, "{chunk:?}");
        got.push_str(chunk);
        match page["next_offset"].as_u64() {
            Some(next) => offset = next,
            None => break,
        }
    }
    assert_eq!(got, lines[40..]);
    let (code, _, stderr) = run(t.cmd().args(["output", "get", "../../etc/passwd"]));
    assert_ne!(code, 0);
    assert!(stderr.contains("12 hex digits"), "{stderr}");
}
