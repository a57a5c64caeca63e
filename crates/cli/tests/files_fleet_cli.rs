//! A fleet of workers listing one repository at once through a shared
//! cache folder, against a scripted API on 127.0.0.1 (answers in the
//! documented shapes: a guess, as this machine cannot reach GitHub).

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests fail loudly")]

mod common;
#[path = "../../filelist/tests/support/server.rs"]
mod server;

use std::process::Stdio;
use std::time::Duration;

use common::TestEnv;
use server::{Server, ok};

const SHA: &str = "c0ffee0000000000000000000000000000000001";
const WORKERS: usize = 50;

#[test]
fn fifty_workers_sharing_a_cache_make_one_fetch_and_list_alike() {
    let t = TestEnv::new();
    let shared = t.dir.path().join("shared-volume/filelist");
    let s = Server::start();
    s.route("/repos/acme/app/commits/main", ok(SHA.into()));
    let tree = r#"{"sha": "t", "url": "x", "truncated": false, "tree": [
        {"path": "README.md", "mode": "100644", "type": "blob", "size": 20},
        {"path": "Cargo.toml", "mode": "100644", "type": "blob", "size": 20},
        {"path": "src", "mode": "040000", "type": "tree"},
        {"path": "src/lib.rs", "mode": "100644", "type": "blob", "size": 20}
    ]}"#;
    // A slow answer, so that the workers really overlap.
    let mut slow = ok(tree.into());
    slow.delay = Duration::from_millis(400);
    s.route(
        &format!("/repos/acme/app/git/trees/{SHA}?recursive=1"),
        slow,
    );
    let workers: Vec<_> = (0..WORKERS)
        .map(|_| {
            t.cmd()
                .args([
                    "files",
                    "--no-timestamp",
                    "--github",
                    "acme/app@main",
                    "--api-url",
                    &s.base,
                    "-c",
                    &format!("file_list_context.cache_dir={}", shared.display()),
                ])
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    let outputs: Vec<_> = workers
        .into_iter()
        .map(|w| w.wait_with_output().unwrap())
        .collect();
    for out in &outputs {
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&outputs[0].stdout)
        );
    }
    assert!(String::from_utf8_lossy(&outputs[0].stdout).contains("src/"));
    let hits = s.hits();
    let trees = hits.iter().filter(|h| h.contains("git/trees/")).count();
    assert_eq!(trees, 1, "one fetch for the fleet: {hits:?}");
    assert_eq!(hits.len(), 2, "the ref and the tree, once: {hits:?}");
    // No torn file: every entry in the shared folder is whole JSON.
    let mut entries = 0;
    for entry in std::fs::read_dir(&shared).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|x| x == "json") {
            let text = std::fs::read_to_string(&path).unwrap();
            serde_json::from_str::<serde_json::Value>(&text).unwrap();
            entries += 1;
        }
    }
    assert_eq!(entries, 1);
}
