//! `agentctx context --github`: a repository that is not cloned, against
//! a scripted API on 127.0.0.1 (answers in the documented shapes: a guess,
//! as this machine cannot reach GitHub to record real ones).

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests fail loudly")]

mod common;
#[path = "../../filelist/tests/support/server.rs"]
mod server;

use common::{TestEnv, run};
use server::{Reply, Server, ok};

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
fn a_repository_that_cannot_be_listed_is_exit_2_naming_it_and_why() {
    let t = TestEnv::new();
    let refused = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let limited = Server::start();
    limited.route(
        "/repos/acme/app/commits/main",
        Reply {
            status: 403,
            headers: vec![
                ("x-ratelimit-remaining".into(), "0".into()),
                ("x-ratelimit-reset".into(), "1795255200".into()),
            ],
            ..ok("{}".into())
        },
    );
    let empty = Server::start();
    for (platform, name, api, message) in [
        (
            "--github",
            "acme/app@main",
            format!("http://127.0.0.1:{refused}"),
            "error: acme/app: cannot connect to 127.0.0.1",
        ),
        (
            "--github",
            "acme/app@main",
            limited.base.clone(),
            "error: acme/app: rate limited by GitHub; the limit resets at 2026-11-21T10:00:00Z",
        ),
        (
            "--github",
            "acme/app@main",
            empty.base.clone(),
            "error: acme/app: not found, or private (ref main)",
        ),
        (
            "--gitlab",
            "project",
            empty.base.clone(),
            "error: `project` is not a GitLab repository",
        ),
    ] {
        let (code, stdout, stderr) =
            run(t.cmd().args(["context", platform, name, "--api-url", &api]));
        assert_eq!(code, 2, "{name} at {api}: {stdout}{stderr}");
        assert_eq!(stdout, "", "nothing on stdout");
        assert!(stderr.starts_with(message), "{stderr}");
    }
    // One request for the name that can exist, none for the one that cannot.
    assert_eq!(empty.hits().len(), 1, "{:?}", empty.hits());
}
