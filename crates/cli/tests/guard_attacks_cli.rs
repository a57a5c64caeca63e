//! The file-tool guard against what an attack pass (2026-11-25) found
//! allowed: MCP tools writing a protected file by its bare name or
//! searching `.` over an excluded folder, a search scope filled past the
//! walk's budget, a Glob pattern that leaves its folder. The payloads are
//! the recorded Claude Code 2.1.330 `PreToolUse` with another tool and
//! input: the MCP tools' inputs are the shapes of the servers named
//! (filesystem, serena), not recorded here.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests fail loudly")]

mod common;

use common::{TestEnv, agentctx_with_input, claude_payload};
use serde_json::{Value, json};

fn project() -> TestEnv {
    let t = TestEnv::new();
    t.write("project/.git/HEAD", "ref: refs/heads/main\n");
    t.write("project/secrets/key.txt", "SECRET\n");
    t.write("project/sub/deep/x.pem", "PEM\n");
    t.write(
        "project/.coding-agent-rules.yaml",
        "file_patterns:\n  exclude: [\"secrets/\", \"*.pem\"]\n",
    );
    let start = claude_payload(&t, &t.project, "claude-SessionStart-startup.json", "g1");
    agentctx_with_input(&t, &["hook"], &start);
    t
}

/// The hook's answer to `tool` with `input` in session g1.
fn decide(t: &TestEnv, tool: &str, input: Value) -> String {
    let mut payload: Value = serde_json::from_str(&claude_payload(
        t,
        &t.project,
        "claude-PreToolUse-mcp__github__delete_file.json",
        "g1",
    ))
    .unwrap();
    payload["tool_name"] = tool.into();
    payload["tool_input"] = input;
    payload["permission_mode"] = "bypassPermissions".into();
    agentctx_with_input(t, &["hook"], &payload.to_string())
}

/// Whether Claude Code refuses the call on `answer`: it reads
/// `hookSpecificOutput.permissionDecision` of a `PreToolUse` reply, and
/// nothing else of the reply decides. An answer in any other shape fails
/// the test; an empty one lets the call run.
fn denied(answer: &str) -> bool {
    if answer.trim().is_empty() {
        return false;
    }
    let reply: Value =
        serde_json::from_str(answer).unwrap_or_else(|e| panic!("not JSON ({e}): {answer}"));
    let keys: Vec<&String> = reply.as_object().unwrap().keys().collect();
    assert_eq!(keys, ["hookSpecificOutput"], "{answer}");
    let out = &reply["hookSpecificOutput"];
    assert_eq!(out["hookEventName"], "PreToolUse", "{answer}");
    match out["permissionDecision"].as_str() {
        Some("deny") => {
            assert!(
                out["permissionDecisionReason"]
                    .as_str()
                    .is_some_and(|r| !r.is_empty()),
                "a denial without its reason: {answer}"
            );
            true
        }
        None | Some("allow") => false,
        Some(other) => panic!("a decision agentctx never gives here ({other}): {answer}"),
    }
}

#[test]
fn mcp_tools_cannot_write_protected_files_by_bare_name_nor_search_excluded_ones() {
    let t = project();
    for (tool, input) in [
        (
            "mcp__fs__write_file",
            json!({"path": ".agentctx.yaml", "content": "x"}),
        ),
        (
            "mcp__fs__write_file",
            json!({"path": ".coding-agent-rules.md", "content": "x"}),
        ),
        ("mcp__fs__edit_file", json!({"filename": ".agentctx.yaml"})),
        (
            "mcp__serena__search_for_pattern",
            json!({"substring_pattern": "SECRET", "relative_path": "."}),
        ),
        ("mcp__grep__search", json!({"pattern": "PEM", "dir": "sub"})),
        (
            "mcp__fs__directory_tree",
            json!({"path": t.project.display().to_string()}),
        ),
    ] {
        let answer = decide(&t, tool, input.clone());
        assert!(denied(&answer), "{tool} {input}: {answer}");
    }
    // A search of a folder with nothing excluded in it is allowed.
    std::fs::create_dir_all(t.project.join("docs")).unwrap();
    std::fs::write(t.project.join("docs/a.md"), "a\n").unwrap();
    assert!(!denied(&decide(
        &t,
        "mcp__grep__search",
        json!({"pattern": "a", "dir": "docs"})
    )));
}

#[test]
fn a_search_scope_past_the_walks_budget_is_judged_by_the_projects_walk() {
    let t = project();
    let filler = t.project.join("sub/zzz");
    std::fs::create_dir_all(&filler).unwrap();
    for i in 0..20_001 {
        std::fs::write(filler.join(i.to_string()), "").unwrap();
    }
    for (tool, input) in [
        (
            "Grep",
            json!({"pattern": "PEM", "path": t.project.join("sub")}),
        ),
        (
            "Glob",
            json!({"pattern": "**/*.pem", "path": t.project.join("sub")}),
        ),
    ] {
        let answer = decide(&t, tool, input.clone());
        assert!(denied(&answer), "{tool} {input}: {answer}");
    }
    // The large folder alone holds nothing excluded: allowed.
    let answer = decide(&t, "Grep", json!({"pattern": "x", "path": filler}));
    assert!(!denied(&answer), "{answer}");
}

#[test]
fn a_glob_pattern_that_leaves_its_folder_is_judged_where_it_leads() {
    let t = project();
    std::fs::create_dir_all(t.dir.path().join("clean")).unwrap();
    let pattern = format!("{}/secrets/*", t.project.display());
    let answer = decide(
        &t,
        "Glob",
        json!({"pattern": pattern, "path": t.dir.path().join("clean")}),
    );
    assert!(denied(&answer), "{answer}");
    // Where it leads holds nothing excluded: allowed.
    std::fs::create_dir_all(t.project.join("docs")).unwrap();
    let pattern = format!("{}/docs/*", t.project.display());
    let answer = decide(
        &t,
        "Glob",
        json!({"pattern": pattern, "path": t.dir.path().join("clean")}),
    );
    assert!(!denied(&answer), "{answer}");
}

/// A third pass: more MCP shapes, and large scopes named through `..` or a link.
#[test]
fn mcp_folders_searches_without_a_folder_and_uris_in_capitals_are_judged() {
    let t = project();
    for (tool, input) in [
        ("mcp__x__query", json!({"path": "."})),
        ("mcp__x__query", json!({"path": "sub"})),
        ("mcp__rg__search", json!({"pattern": "SECRET"})),
        ("mcp__x__tool", json!({"scope": "."})),
        ("mcp__x__walk", json!({"dir": "sub"})),
        (
            "mcp__serena__get_symbols_overview",
            json!({"relative_path": "sub"}),
        ),
        (
            "mcp__fs__read",
            json!({"uri": format!("FILE://{}/secrets/key.txt", t.project.display())}),
        ),
        (
            "mcp__fs__read",
            json!({"uri": format!("file://LOCALHOST{}/secrets/key.txt", t.project.display())}),
        ),
    ] {
        let answer = decide(&t, tool, input.clone());
        assert!(denied(&answer), "{tool} {input}: {answer}");
    }
    // The same shapes over a folder with nothing excluded are allowed.
    t.write("project/docs/a.md", "a\n");
    t.write("project/README.md", "readme\n");
    for (tool, input) in [
        ("mcp__x__query", json!({"path": "docs"})),
        ("mcp__x__walk", json!({"dir": "docs"})),
        (
            "mcp__fs__read",
            json!({"uri": format!("FILE://{}/README.md", t.project.display())}),
        ),
    ] {
        let answer = decide(&t, tool, input.clone());
        assert!(!denied(&answer), "{tool} {input}: {answer}");
    }
}

#[test]
fn a_large_scope_named_through_dots_or_a_link_is_judged_as_itself() {
    let t = project();
    let filler = t.project.join("sub/zzz");
    std::fs::create_dir_all(&filler).unwrap();
    for i in 0..20_001 {
        std::fs::write(filler.join(i.to_string()), "").unwrap();
    }
    std::os::unix::fs::symlink(t.project.join("sub"), t.project.join("sl")).unwrap();
    std::fs::create_dir_all(t.project.join("docs")).unwrap();
    for path in [t.project.join("docs/../sub"), t.project.join("sl")] {
        let answer = decide(&t, "Grep", json!({"pattern": "PEM", "path": path}));
        assert!(denied(&answer), "{}: {answer}", path.display());
    }
    // The large folder alone, through the same spellings: allowed.
    std::os::unix::fs::symlink(&filler, t.project.join("fl")).unwrap();
    for path in [t.project.join("docs/../sub/zzz"), t.project.join("fl")] {
        let answer = decide(&t, "Grep", json!({"pattern": "PEM", "path": path}));
        assert!(!denied(&answer), "{}: {answer}", path.display());
    }
}

/// A fetch of cloud metadata passed in every mode (issue 37): WebFetch
/// and an MCP argument that is a URL are judged where they lead. Without
/// a `network` section only metadata and link-local addresses are
/// refused; a development server on loopback still passes.
#[test]
fn fetches_of_cloud_metadata_are_denied_and_local_servers_pass() {
    let t = project();
    for (tool, input) in [
        (
            "WebFetch",
            json!({"url": "http://169.254.169.254/latest/meta-data/iam/", "prompt": "x"}),
        ),
        (
            "WebFetch",
            json!({"url": "http://[fd00:ec2::254]/", "prompt": "x"}),
        ),
        (
            "WebFetch",
            json!({"url": "http://metadata.google.internal/computeMetadata/v1/", "prompt": "x"}),
        ),
        (
            "mcp__fetch__fetch",
            json!({"url": "http://169.254.169.254/"}),
        ),
        (
            "mcp__browser__open",
            json!({"page": {"href": "http://[::ffff:169.254.169.254]/"}}),
        ),
    ] {
        let answer = decide(&t, tool, input.clone());
        assert!(denied(&answer), "{tool} {input}: {answer}");
        assert!(
            answer.contains("metadata") || answer.contains("link-local"),
            "{answer}"
        );
    }
    let answer = decide(
        &t,
        "WebFetch",
        json!({"url": "http://127.0.0.1:3000/", "prompt": "x"}),
    );
    assert!(!denied(&answer), "{answer}");
}

/// With a `network` section, what the proxy would refuse.
#[test]
fn fetches_follow_the_network_rules() {
    let t = TestEnv::new();
    t.write("project/.git/HEAD", "ref: refs/heads/main\n");
    t.write(
        "project/.coding-agent-rules.yaml",
        "network:\n  allow: [\"localhost:3000\", \"203.0.113.0/24\"]\n",
    );
    let start = claude_payload(&t, &t.project, "claude-SessionStart-startup.json", "g1");
    agentctx_with_input(&t, &["hook"], &start);
    let allowed = decide(
        &t,
        "WebFetch",
        json!({"url": "http://localhost:3000/a", "prompt": "x"}),
    );
    assert!(!denied(&allowed), "{allowed}");
    let allowed = decide(
        &t,
        "WebFetch",
        json!({"url": "https://203.0.113.9/", "prompt": "x"}),
    );
    assert!(!denied(&allowed), "{allowed}");
    let refused = decide(
        &t,
        "WebFetch",
        json!({"url": "http://127.0.0.1:22/", "prompt": "x"}),
    );
    assert!(denied(&refused), "{refused}");
    assert!(
        refused.contains("not in the network rules' allow list"),
        "{refused}"
    );
}

/// The metadata address spelled as the resolver still reads it (decimal,
/// hex, octal, short forms, a user part, an upper-case scheme, IPv4 in
/// IPv6), and inside another agent's fetch tool: each is judged where it
/// leads (attack pass of issue 37).
#[test]
fn metadata_in_every_spelling_is_denied() {
    let t = project();
    for url in [
        "http://2852039166/latest/",
        "http://0xa9fea9fe/latest/",
        "http://0251.0376.0251.0376/latest/",
        "http://169.254.43518/latest/",
        "http://user:pw@169.254.169.254/latest/",
        "HTTP://169.254.169.254/latest/",
        "http://[::ffff:a9fe:a9fe]/latest/",
        "http://metadata.google.internal./computeMetadata/v1/",
    ] {
        let answer = decide(&t, "WebFetch", json!({"url": url, "prompt": "x"}));
        assert!(denied(&answer), "{url}: {answer}");
    }
    // Gemini CLI's and Qwen Code's `web_fetch` carry URLs in a prompt;
    // the shared name is WebFetch.
    let answer = decide(
        &t,
        "WebFetch",
        json!({"prompt": "Summarize <http://169.254.169.254/latest/meta-data/> please"}),
    );
    assert!(denied(&answer), "{answer}");
}
