//! `agentctx context --github`: a repository that is not cloned, against
//! a scripted API on 127.0.0.1 (answers in the documented shapes: a guess,
//! as this machine cannot reach GitHub to record real ones).

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests fail loudly")]

mod common;
#[path = "../../filelist/tests/support/server.rs"]
mod server;

use common::{TestEnv, run};
use server::{Server, ok};

const SHA: &str = "c0ffee0000000000000000000000000000000001";

#[test]
fn a_remote_repository_gets_its_file_list_and_its_own_agents_md() {
    let t = TestEnv::new();
    t.write("project/AGENTS.md", "LOCAL INSTRUCTIONS\n");
    t.write(
        "project/.coding-agent-rules.yaml",
        "system_prompt_extension: LOCAL RULES\n",
    );
    let s = Server::start();
    s.route("/repos/acme/app/commits/feature%2Fx", ok(SHA.into()));
    let tree = r#"{"sha": "t", "url": "x", "truncated": false, "tree": [
        {"path": "AGENTS.md", "mode": "100644", "type": "blob", "size": 20},
        {"path": "Cargo.toml", "mode": "100644", "type": "blob", "size": 20},
        {"path": "src", "mode": "040000", "type": "tree"},
        {"path": "src/lib.rs", "mode": "100644", "type": "blob", "size": 20}
    ]}"#;
    s.route(
        &format!("/repos/acme/app/git/trees/{SHA}?recursive=1"),
        ok(tree.into()),
    );
    s.route(
        &format!("/repos/acme/app/contents/AGENTS.md?ref={SHA}"),
        ok("Run cargo test before committing.\n".into()),
    );
    let (code, stdout, stderr) = run(t.cmd().args([
        "context",
        "--github",
        "acme/app@feature/x",
        "--api-url",
        &s.base,
    ]));
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stdout.contains(&format!(
            "Instructions from: acme/app@{SHA}:AGENTS.md\nRun cargo test before committing.\n"
        )),
        "{stdout}"
    );
    assert!(
        stdout.contains(&format!("<project_files root=\"acme/app@{SHA}\"")),
        "{stdout}"
    );
    assert!(stdout.contains(" ref=\"feature/x\""), "{stdout}");
    assert!(stdout.contains("src/\n  lib.rs\n"), "{stdout}");
    assert!(
        !stdout.contains("LOCAL INSTRUCTIONS") && !stdout.contains("LOCAL RULES"),
        "the local project's parts are left out:\n{stdout}"
    );
    // Cached: the same context again without a request for the tree.
    let before = s.hits().len();
    let again = run(t.cmd().args([
        "context",
        "--github",
        "acme/app@feature/x",
        "--api-url",
        &s.base,
    ]));
    assert_eq!(again.1, stdout, "byte-identical");
    assert!(
        s.hits()[before..].iter().all(|h| !h.contains("git/trees")),
        "{:?}",
        s.hits()
    );
}

#[test]
fn an_unreachable_api_leaves_the_file_list_out_with_a_warning() {
    let t = TestEnv::new();
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let (code, stdout, stderr) = run(t.cmd().args([
        "context",
        "--github",
        "acme/app",
        "--api-url",
        &format!("http://127.0.0.1:{port}"),
    ]));
    assert_eq!(code, 0, "{stderr}");
    assert!(!stdout.contains("project_files"), "{stdout}");
    assert!(
        stderr.contains("file list left out: acme/app: cannot connect"),
        "{stderr}"
    );
}
